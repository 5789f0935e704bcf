/// One ICE candidate as the SDP layer writes and reads it in an `a=candidate` line (RFC 8839
/// section 5.1): `candidate:<foundation> <component> UDP <priority> <address> <port> typ <type>
/// [raddr <relatedAddress> rport <relatedPort>]`.
///
/// Candidates are UDP only: the agent gathers no TCP candidates (RFC 6544), so the SDP layer
/// drops a peer's TCP candidates before handing them over.
public struct ICECandidate: Sendable, Hashable, CustomStringConvertible {
    /// The transport token every candidate of this agent carries.
    public static let transport = "UDP"

    /// 1 to 32 ice-chars; candidates with the same foundation share a base and a server.
    public var foundation: String
    /// 1 for RTP; with rtcp-mux and BUNDLE the only component.
    public var componentID: Int
    /// RFC 8445 section 5.1.2.1: type preference, local preference and component in 32 bits.
    public var priority: UInt32
    /// An IPv4 or IPv6 address literal (IPv6 without brackets).
    public var address: String
    public var port: UInt16
    public var type: ICECandidateType
    /// For server- and peer-reflexive candidates, the base they were learned from; nil for host.
    public var relatedAddress: String?
    public var relatedPort: UInt16?

    public init(
        foundation: String, componentID: Int = 1, priority: UInt32, address: String, port: UInt16,
        type: ICECandidateType, relatedAddress: String? = nil, relatedPort: UInt16? = nil
    ) {
        self.foundation = foundation
        self.componentID = componentID
        self.priority = priority
        self.address = address
        self.port = port
        self.type = type
        self.relatedAddress = relatedAddress
        self.relatedPort = relatedPort
    }

    /// True for an IPv6 address.
    public var isIPv6: Bool { address.contains(":") }

    public var description: String {
        var text = "\(foundation) \(componentID) \(Self.transport) \(priority) \(address) \(port) typ \(type.rawValue)"
        if let relatedAddress, let relatedPort { text += " raddr \(relatedAddress) rport \(relatedPort)" }
        return text
    }
}

/// The candidate types of RFC 8445 section 5.1.1, spelled as SDP spells them (RFC 8839 section 5.1).
public enum ICECandidateType: String, Sendable, Hashable, CaseIterable {
    case host
    case serverReflexive = "srflx"
    case peerReflexive = "prflx"
    case relayed = "relay"
}

/// The pair that carries media once checks succeed: our candidate and the peer's.
public struct ICECandidatePair: Sendable, Hashable, CustomStringConvertible {
    public let local: ICECandidate
    public let remote: ICECandidate

    public init(local: ICECandidate, remote: ICECandidate) {
        self.local = local
        self.remote = remote
    }

    /// `10.2.0.1:49160 (relay) ⇄ 10.2.0.2:50400 (host)`: addresses, ports and candidate types.
    public var description: String {
        "\(local.address):\(local.port) (\(local.type.rawValue)) ⇄ \(remote.address):\(remote.port) (\(remote.type.rawValue))"
    }
}

/// The username fragment and password of one side (RFC 8839 section 5.4: `a=ice-ufrag`,
/// `a=ice-pwd`); STUN checks are signed with the password of the side that receives them.
public struct ICECredentials: Sendable, Hashable {
    public let usernameFragment: String
    public let password: String

    public init(usernameFragment: String, password: String) {
        self.usernameFragment = usernameFragment
        self.password = password
    }

    /// Fresh credentials from the system's random source: 8 and 24 ice-chars (RFC 8839 section
    /// 5.4 asks for at least 4 and 22, with 24 and 128 bits of randomness).
    public static func random() -> ICECredentials {
        let characters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var generator = SystemRandomNumberGenerator()
        func text(_ count: Int) -> String { String((0..<count).map { _ in characters.randomElement(using: &generator)! }) }
        return ICECredentials(usernameFragment: text(8), password: text(24))
    }
}
