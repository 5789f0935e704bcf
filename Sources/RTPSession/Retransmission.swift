/// How the sender repairs packets a receiver reports lost (generic NACK, RFC 4585 §6.2.1). The
/// same choice for a plain-RTP stream and a WebRTC one; with `rtx` the stream needs the RTX
/// payload type and SSRCs, which a plan or a negotiation supplies.
public enum Retransmission: String, Sendable, Hashable, CaseIterable {
    /// Lost packets stay lost.
    case off
    /// The stored packet goes out again unchanged on the media SSRC, which every receiver
    /// understands (libsrtp2 allows the repeated index with `allow_repeat_tx`).
    case resend
    /// RFC 4588 retransmission on its own SSRC and payload type, original sequence number first.
    case rtx
}
