import HTTPAccess
import Hummingbird

/// `GET /metrics`: the Prometheus text exposition (format 0.0.4) that `render` writes, behind a
/// bearer token when `authenticator` is set (Prometheus sends one with `authorization:
/// credentials_file`).
public struct MetricsPage: Sendable {
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    public let render: @Sendable () -> String
    public let authenticator: BearerAuthenticator?

    public init(authenticator: BearerAuthenticator?, render: @escaping @Sendable () -> String) {
        self.render = render
        self.authenticator = authenticator
    }

    public func response(to request: Request, context: AddressedRequestContext) -> Response {
        if let authenticator, case .refused(let refusal) = authenticator.check(
            authorization: request.headers[.authorization], from: context.peerAddress) {
            return Response(refusal: refusal)
        }
        return Response(
            status: .ok, headers: [.contentType: Self.contentType, .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: render())))
    }
}
