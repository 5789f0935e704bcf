/// The `<media>` of an `m=` line (RFC 8866 section 5.14).
public struct MediaKind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let audio = MediaKind(rawValue: "audio")
    public static let video = MediaKind(rawValue: "video")
    public static let application = MediaKind(rawValue: "application")

    public var description: String { rawValue }
}

/// The `<proto>` of an `m=` line: `RTP/AVP` (RFC 3551), `RTP/AVPF` (RFC 4585), `RTP/SAVP`
/// (RFC 3711), `RTP/SAVPF` (RFC 5124), `UDP/TLS/RTP/SAVPF` (DTLS-SRTP, RFC 5764),
/// `UDP/DTLS/SCTP` (data channels, RFC 8841), ...
public struct TransportProtocol: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let rtpAVP = TransportProtocol(rawValue: "RTP/AVP")
    public static let rtpAVPF = TransportProtocol(rawValue: "RTP/AVPF")
    public static let rtpSAVP = TransportProtocol(rawValue: "RTP/SAVP")
    public static let rtpSAVPF = TransportProtocol(rawValue: "RTP/SAVPF")
    public static let udpTLSRTPSAVPF = TransportProtocol(rawValue: "UDP/TLS/RTP/SAVPF")
    public static let udpDTLSSCTP = TransportProtocol(rawValue: "UDP/DTLS/SCTP")

    /// The plain-RTP profile for these options: `RTP/AVP`, `RTP/AVPF`, `RTP/SAVP` or `RTP/SAVPF`.
    public static func rtp(secure: Bool, feedback: Bool) -> TransportProtocol {
        switch (secure, feedback) {
        case (false, false): .rtpAVP
        case (false, true): .rtpAVPF
        case (true, false): .rtpSAVP
        case (true, true): .rtpSAVPF
        }
    }

    private var components: [Substring] { rawValue.split(separator: "/") }

    /// Whether the formats are RTP payload types.
    public var carriesRTP: Bool { components.contains("RTP") }

    /// A secure RTP profile: `.../SAVP` or `.../SAVPF`.
    public var isSecureRTP: Bool { carriesRTP && (components.last == "SAVP" || components.last == "SAVPF") }

    public var description: String { rawValue }
}
