/// The value of an SDP `a=setup` attribute (RFC 4145 section 4, as RFC 8842 section 5 uses it for
/// DTLS): who opens the DTLS association.
public enum DTLSSetup: String, Sendable, Hashable, CaseIterable {
    /// This endpoint sends the ClientHello.
    case active
    /// This endpoint waits for the ClientHello.
    case passive
    /// Either; an offer says this and the answer decides (JSEP, RFC 8829 section 5.3.1).
    case actpass
}

/// Which end of the DTLS handshake this side plays.
public enum DTLSRole: Sendable, Hashable, CustomStringConvertible {
    /// Sends the ClientHello: the `active` side (RFC 5763 section 5, RFC 8842 section 5).
    case client
    /// Answers it: the `passive` side.
    case server

    /// The role that our and the peer's `a=setup` values give us once offer and answer are both
    /// known. An `actpass` offerer takes the opposite of the answer; two `active`, two `passive`
    /// or two `actpass` sides have no DTLS client and are refused.
    public init(localSetup: DTLSSetup, remoteSetup: DTLSSetup) throws(DTLSError) {
        switch (localSetup, remoteSetup) {
        case (.active, .passive), (.active, .actpass), (.actpass, .passive):
            self = .client
        case (.passive, .active), (.passive, .actpass), (.actpass, .active):
            self = .server
        case (.active, .active), (.passive, .passive), (.actpass, .actpass):
            throw DTLSError("choose the DTLS role", .setupConflict(local: localSetup, remote: remoteSetup))
        }
    }

    public var description: String {
        switch self {
        case .client: "client"
        case .server: "server"
        }
    }
}
