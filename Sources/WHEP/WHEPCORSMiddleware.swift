import HTTPTypes
import Hummingbird

/// CORS for a viewer page on another origin (a dashboard, a file:// page): every answer allows
/// any origin and exposes `Location` (the session to DELETE) and `ETag`; preflight `OPTIONS` is
/// answered here for every path, with `Accept-Post: application/sdp` as WHEP asks (RFC 9725 §4.2
/// does the same for WHIP). Nothing here relies on cookies, so `*` is safe: offers carry a bearer
/// token in a header and sessions are addressed by unguessable ids.
///
/// With `allowedOrigins`, only pages of those origins may call: their `Origin` is echoed (with
/// `Vary: Origin`), and any other origin gets no CORS headers, so its browser withholds the answer.
struct WHEPCORSMiddleware<Context: RequestContext>: RouterMiddleware {
    let allowedOrigins: [String]

    init(allowedOrigins: [String] = []) {
        self.allowedOrigins = allowedOrigins
    }

    /// The CORS headers for a request from `origin`; only `Vary` when that origin is not allowed.
    func corsHeaders(origin: String?) -> HTTPFields {
        let exposed = "Location, ETag, Accept-Post"
        if allowedOrigins.isEmpty { return [.accessControlAllowOrigin: "*", .accessControlExposeHeaders: exposed] }
        guard let origin, allowedOrigins.contains(origin) else { return [.vary: "Origin"] }
        return [.accessControlAllowOrigin: origin, .accessControlExposeHeaders: exposed, .vary: "Origin"]
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let allowed = corsHeaders(origin: request.headers[.origin])
        if request.method == .options {
            var headers = allowed
            headers[.accessControlAllowMethods] = "GET, POST, DELETE, PATCH, OPTIONS"
            headers[.accessControlAllowHeaders] = "Content-Type, Authorization, If-Match"
            headers[.accessControlMaxAge] = "600"
            headers[.acceptPost] = "application/sdp"
            headers[.allow] = "GET, POST, DELETE, PATCH, OPTIONS"
            return Response(status: .noContent, headers: headers)
        }
        var response = try await next(request, context)
        for field in allowed { response.headers[field.name] = field.value }
        return response
    }
}

extension HTTPField.Name {
    static let acceptPost = HTTPField.Name("Accept-Post")!
}
