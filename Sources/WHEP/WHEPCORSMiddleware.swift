import HTTPTypes
import Hummingbird

/// CORS for a viewer page on another origin (a dashboard, a file:// page): every answer allows
/// any origin and exposes `Location` (the session to DELETE) and `ETag`; preflight `OPTIONS` is
/// answered here for every path, with `Accept-Post: application/sdp` as WHEP asks (RFC 9725 §4.2
/// does the same for WHIP). Nothing here needs credentials, so `*` is safe: sessions are
/// addressed by unguessable ids, not cookies.
struct WHEPCORSMiddleware<Context: RequestContext>: RouterMiddleware {
    static var allowed: HTTPFields {
        [
            .accessControlAllowOrigin: "*",
            .accessControlExposeHeaders: "Location, ETag, Accept-Post",
        ]
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.method == .options {
            var headers = Self.allowed
            headers[.accessControlAllowMethods] = "GET, POST, DELETE, PATCH, OPTIONS"
            headers[.accessControlAllowHeaders] = "Content-Type, Authorization, If-Match"
            headers[.accessControlMaxAge] = "600"
            headers[.acceptPost] = "application/sdp"
            headers[.allow] = "GET, POST, DELETE, PATCH, OPTIONS"
            return Response(status: .noContent, headers: headers)
        }
        var response = try await next(request, context)
        for field in Self.allowed { response.headers[field.name] = field.value }
        return response
    }
}

extension HTTPField.Name {
    static let acceptPost = HTTPField.Name("Accept-Post")!
}
