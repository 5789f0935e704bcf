/// One `a=rtcp-fb:<pt> <value>` capability (RFC 4585 section 4.2).
public enum RTCPFeedback: Sendable, Hashable, CustomStringConvertible {
    /// `nack`: generic NACK, RFC 4585 section 6.2.1.
    case nack
    /// `nack pli`: picture loss indication, RFC 4585 section 6.3.1.
    case pli
    /// `ccm fir`: full intra request, RFC 5104 section 7.1.
    case fir
    /// `transport-cc`: transport-wide congestion control feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01).
    case transportCC
    /// `goog-remb`: receiver estimated maximum bitrate (draft-alvestrand-rmcat-remb-03).
    case remb
    /// Anything else, such as `ccm tmmbr` or `trr-int 100`, with single spaces between tokens.
    /// Write the cases above rather than their text here, so that values compare equal.
    case other(String)

    /// The attribute value after the payload type.
    public var sdpValue: String {
        switch self {
        case .nack: "nack"
        case .pli: "nack pli"
        case .fir: "ccm fir"
        case .transportCC: "transport-cc"
        case .remb: "goog-remb"
        case .other(let value): value
        }
    }

    public var description: String { sdpValue }

    /// From the value after the payload type; runs of blanks count as one space.
    public init(sdpValue: some StringProtocol) {
        let normalized = SDPText.tokens(Substring(sdpValue)).joined(separator: " ")
        switch normalized {
        case "nack": self = .nack
        case "nack pli": self = .pli
        case "ccm fir": self = .fir
        case "transport-cc": self = .transportCC
        case "goog-remb": self = .remb
        default: self = .other(normalized)
        }
    }
}
