import HTTPTypes
import Hummingbird
import ICEServers

/// Offers the server's STUN and TURN servers to viewers in `Link: <...>; rel="ice-server"`
/// fields (RFC 9725 section 4.6): on the 201 of `POST /whep`, and on an `OPTIONS` that is no
/// CORS preflight, which the viewer page sends before it creates its `RTCPeerConnection` (a
/// browser cannot add TURN servers once it has gathered). A preflight gets none (RFC 9725:
/// credentials are not for every preflight). It exposes `Link` to pages on other origins, and
/// says on OPTIONS which PATCH bodies a session takes (`Accept-Patch`, RFC 5789 section 3.1).
///
/// Added before the CORS middleware, so that it sees the OPTIONS answers that one makes.
struct ICEServerLinkMiddleware<Context: RequestContext>: RouterMiddleware {
    private let fieldValues: [String]

    init(servers: [ICEServer]) {
        fieldValues = ICEServerLinks.fieldValues(for: servers)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        let isPreflight = request.headers[.accessControlRequestMethod] != nil
        if request.method == .options { response.headers[.acceptPatch] = WHEPServer.sdpFragmentType }
        let offers = (request.method == .options && !isPreflight) || (request.method == .post && response.status == .created)
        guard offers, !fieldValues.isEmpty else { return response }
        for value in fieldValues { response.headers.append(HTTPField(name: .link, value: value)) }
        if let exposed = response.headers[.accessControlExposeHeaders] {
            response.headers[.accessControlExposeHeaders] = exposed + ", Link"
        }
        return response
    }
}

extension HTTPField.Name {
    static let link = HTTPField.Name("Link")!
    static let acceptPatch = HTTPField.Name("Accept-Patch")!
}
