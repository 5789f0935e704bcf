import DTLS
import ICE
import RTPSender
import SDP

/// Why a WebRTC sender or connection could not be set up or went down, naming the layer.
public enum WebRTCError: Error, Sendable, CustomStringConvertible {
    /// The peer's SDP does not parse.
    case invalidDescription(SDPParseError)
    /// The peer's SDP parses but cannot be answered, or does not fit our offer.
    case negotiation(SDPNegotiationError)
    /// The peer's SDP has no DTLS fingerprint that we can check (sha-256, sha-384 or sha-512).
    case unsupportedFingerprint([String])
    case ice(ICEError)
    case dtls(DTLSError)
    case sender(RTPSenderError)
    /// The connection failed or timed out.
    case connection(WebRTCFailure)
    /// The connection was closed before it was ready, or frames came after `close`.
    case closed
    /// `acceptAnswer` on a sender that answered, or twice.
    case unexpectedAnswer(String)
    /// The configuration's simulcast encodings cannot be offered.
    case invalidSimulcast(String)

    public var description: String {
        switch self {
        case .invalidDescription(let error): "the peer's SDP is malformed: \(error)"
        case .negotiation(let error): "the peer's SDP does not fit: \(error)"
        case .unsupportedFingerprint(let values):
            "the peer's SDP has no usable a=fingerprint (sha-256, sha-384 or sha-512)"
                + (values.isEmpty ? "" : ", only \(values.joined(separator: ", "))")
        case .ice(let error): "\(error)"
        case .dtls(let error): "\(error)"
        case .sender(let error): "\(error)"
        case .connection(let failure): "WebRTC connection: \(failure)"
        case .closed: "the WebRTC connection is closed"
        case .unexpectedAnswer(let why): "cannot accept an answer: \(why)"
        case .invalidSimulcast(let why): "simulcast cannot be offered: \(why)"
        }
    }
}
