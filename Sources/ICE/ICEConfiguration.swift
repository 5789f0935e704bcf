/// Who decides the pair (RFC 8445 section 6.1.1): the offerer is controlling. A WHIP client
/// publishes as controlling; a WHEP endpoint answers as controlled.
public enum ICERole: Sendable, Hashable {
    case controlling
    case controlled
}

/// Full agents run checks; lite agents only answer them and advertise host candidates
/// (RFC 8445 section 2.5). Lite is for a server with a public address, always controlled.
public enum ICEMode: Sendable, Hashable {
    case full
    case lite
}

import ICEServers

/// How an `ICEAgent` gathers and checks.
public struct ICEConfiguration: Sendable, Hashable {
    public var role: ICERole
    public var mode: ICEMode
    /// For a server-reflexive candidate; resolved on the agent's thread when gathering starts.
    public var stunServer: STUNServerAddress?
    /// TURN servers (RFC 8656) for relayed candidates, one allocation each per local address:
    /// `turn:` over UDP or TCP (`turns:` is skipped: see `ICEAgent`). Resolved on the agent's
    /// thread when gathering starts.
    public var turnServers: [ICEServer]
    /// Host candidates only on these address literals; empty means every usable interface,
    /// IPv4 and IPv6 (libnice skips loopback and link-local interfaces then).
    public var localAddresses: [String]
    /// RFC 7675: consent checks every 4 to 6 s on the selected pair, on a lite agent too; the
    /// session fails (`.failed`, `send` refused) when the peer has answered none for a while: 30 s
    /// with libnice 0.1.22 or later (RFC 7675 section 5.1). libnice 0.1.21 (Debian 12) would give
    /// up after 10 s, so that one lost check or answer could end a session on a lossy path; with
    /// it the same checks run as keepalives, which fail the session after 50 s without an answer.
    public var consentFreshness: Bool

    public init(
        role: ICERole, mode: ICEMode = .full, stunServer: STUNServerAddress? = nil, turnServers: [ICEServer] = [],
        localAddresses: [String] = [], consentFreshness: Bool = true
    ) {
        self.role = role
        self.mode = mode
        self.stunServer = stunServer
        self.turnServers = turnServers
        self.localAddresses = localAddresses
        self.consentFreshness = consentFreshness
    }
}

/// A STUN server as `--stun HOST:PORT` names it: a host name or an address literal (IPv6 in
/// brackets), and a port (3478 when omitted).
public struct STUNServerAddress: Sendable, Hashable, CustomStringConvertible {
    public static let defaultPort: UInt16 = 3478

    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16 = Self.defaultPort) {
        self.host = host
        self.port = port
    }

    /// Reads `host`, `host:port`, `[v6]` or `[v6]:port`.
    public init(parsing text: String) throws(ICEError) {
        let invalid = ICEError("parse STUN server \"\(text)\"", detail: "expected HOST:PORT")
        var host = Substring(text)
        var portText: Substring?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { throw invalid }
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw invalid }
                portText = rest.dropFirst()
            }
        } else if let colon = host.firstIndex(of: ":") {
            guard host[host.index(after: colon)...].firstIndex(of: ":") == nil else { throw invalid }
            portText = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        guard !host.isEmpty else { throw invalid }
        var port = Self.defaultPort
        if let portText {
            guard let parsed = UInt16(portText), parsed > 0 else { throw invalid }
            port = parsed
        }
        self.init(host: String(host), port: port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
