/// One STUN or TURN server with its long-term credentials (RFC 8489 section 9.2), as WebRTC's
/// `RTCIceServer` holds it with a single URL, and as a WHIP endpoint's `Link` header offers it
/// (RFC 9725 section 4.6).
///
/// `description` shows the URI only: credentials are never printed.
public struct ICEServer: Sendable, Hashable, CustomStringConvertible {
    public let uri: ICEServerURI
    /// For TURN; nil for STUN.
    public let username: String?
    public let credential: String?

    /// A TURN server needs both credentials; STUN takes none (any given are dropped).
    public init(uri: ICEServerURI, username: String? = nil, credential: String? = nil) throws(ICEServerError) {
        if uri.scheme.isTURN {
            guard let username, let credential, !username.isEmpty, !credential.isEmpty else { throw .turnWithoutCredentials }
            guard !Self.hasControlCharacter(username), !Self.hasControlCharacter(credential) else { throw .controlCharacter }
            self.username = username
            self.credential = credential
        } else {
            self.username = nil
            self.credential = nil
        }
        self.uri = uri
    }

    public var description: String { uri.description }

    static func hasControlCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }
}
