import CongestionControl
import Pacing
import RTP

/// How a sender behaves whatever its peer: packet size, CNAME, how losses are repaired,
/// congestion control, pacing and how often keyframe requests are honoured. One value serves
/// the plain-RTP plan and the WebRTC negotiation alike; they add only what the two ends agree on.
public struct SenderTuning: Sendable {
    /// The largest whole packet: RTP header, extensions, payload and the SRTP tag.
    public var mtu: Int
    /// RTCP CNAME (RFC 3550 §6.5.1).
    public var cname: String
    /// What we would like; a peer that does not accept NACK (or RTX) gets less.
    public var retransmission: Retransmission
    /// Forward error correction beside NACK, where the peer takes RED and ULPFEC.
    public var fec: FECMode
    /// Start, minimum and maximum rate, probing. The sender sets the encoder's target from it, so
    /// the start should be the rate the encoder was configured with.
    public var congestionControl: CongestionControllerConfiguration
    public var pacing: PacerConfiguration
    /// Keyframe requests are honoured at most this often (libwebrtc: 300 ms).
    public var keyframeRequestIntervalNs: Int64
    /// The playout delay receivers are asked for, on every packet where the playout-delay
    /// extension is agreed; nil asks for nothing and leaves the receiver's jitter buffer to itself.
    public var playoutDelay: PlayoutDelay?

    public init(
        mtu: Int = 1200, cname: String = "camrtp", retransmission: Retransmission = .resend, fec: FECMode = .off,
        congestionControl: CongestionControllerConfiguration = SenderTuning.defaultCongestionControl,
        pacing: PacerConfiguration = PacerConfiguration(), keyframeRequestIntervalNs: Int64 = 300_000_000,
        playoutDelay: PlayoutDelay? = nil
    ) {
        self.mtu = mtu
        self.cname = cname
        self.retransmission = retransmission
        self.fec = fec
        self.congestionControl = congestionControl
        self.pacing = pacing
        self.keyframeRequestIntervalNs = keyframeRequestIntervalNs
        self.playoutDelay = playoutDelay
    }

    /// 1500 kbit/s to start, as `VP8EncoderSettings` does, never above it and down to 30 kbit/s
    /// (libwebrtc's floor) when the network asks.
    public static let defaultCongestionControl = CongestionControllerConfiguration(
        startBitrateBps: 1_500_000, minBitrateBps: 30_000, maxBitrateBps: 1_500_000)
}
