extension DTLSSession {
    /// Which end of the DTLS handshake this side plays: the SDP negotiation decides it from the
    /// two `a=setup` values (RFC 8842 section 5) and passes it in.
    public enum Role: Sendable, Hashable, CustomStringConvertible {
        /// Sends the ClientHello: the `active` side (RFC 5763 section 5).
        case client
        /// Answers it: the `passive` side.
        case server

        public var description: String {
            switch self {
            case .client: "client"
            case .server: "server"
            }
        }
    }
}
