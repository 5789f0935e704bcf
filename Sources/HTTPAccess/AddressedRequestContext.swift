import HTTPTypes
import Hummingbird
import NIOCore

/// A request context that knows the address the request came from, for the per-address failure
/// limit. Without a socket (the router test mode) the address is nil.
public struct AddressedRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The peer's IP address as text (no port): one key per host, whatever port it comes from.
    public var peerAddress: String? { remoteAddress?.ipAddress }
}

extension Response {
    /// The refusal as an answer: its status and headers, and its reason as text.
    public init(refusal: AccessRefusal) {
        var headers = refusal.headers
        headers[.contentType] = "text/plain; charset=utf-8"
        self.init(status: refusal.status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: refusal.message + "\n")))
    }
}
