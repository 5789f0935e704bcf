import CongestionControl
import Pacing
import RTPSender

/// Everything a `WebRTCVideoSender` is built from: the transport (ICE, DTLS, timeouts) and what
/// the RTP sender offers and does (retransmission, extensions, congestion control, pacing).
/// Payload types and extension ids are ours in an offer and the peer's in an answer.
public struct WebRTCSenderConfiguration: Sendable {
    /// How lost packets are repaired when the peer accepts NACK.
    public enum Retransmission: Sendable, Hashable {
        case off
        /// Resend the stored packet; also what `rtx` falls back to when the peer has no RTX.
        case resend
        /// RFC 4588 on its own SSRC, offered as `a=rtpmap:<pt> rtx/90000` + `a=ssrc-group:FID`.
        case rtx
    }

    public var transport: WebRTCTransportOptions
    /// Largest SRTP packet; 1200 fits any path with IPv6's minimum MTU, as browsers assume.
    public var mtu: Int
    /// Our media SSRC (nil: random), written as `a=ssrc`; RTX takes another random one.
    public var ssrc: UInt32?
    public var cname: String
    /// `a=msid` stream id, so that a browser files the track under it.
    public var streamID: String
    public var retransmission: Retransmission
    /// Offer the transport-wide sequence number extension and transport-cc feedback.
    public var transportCC: Bool
    /// Offer abs-send-time, which REMB-only receivers estimate from.
    public var absoluteSendTime: Bool
    /// Payload types and the mid of our offers (answers take the offer's).
    public var payloadType: UInt8
    public var rtxPayloadType: UInt8
    public var congestionControl: CongestionControllerConfiguration
    public var pacing: PacerConfiguration
    public var keyframeRequestIntervalNs: Int64

    public init(
        transport: WebRTCTransportOptions = WebRTCTransportOptions(), mtu: Int = 1200, ssrc: UInt32? = nil,
        cname: String = "camrtp", streamID: String = "camrtp", retransmission: Retransmission = .rtx,
        transportCC: Bool = true, absoluteSendTime: Bool = true, payloadType: UInt8 = 96, rtxPayloadType: UInt8 = 97,
        congestionControl: CongestionControllerConfiguration = RTPSenderConfiguration.defaultCongestionControl,
        pacing: PacerConfiguration = PacerConfiguration(), keyframeRequestIntervalNs: Int64 = 300_000_000
    ) {
        self.transport = transport
        self.mtu = mtu
        self.ssrc = ssrc
        self.cname = cname
        self.streamID = streamID
        self.retransmission = retransmission
        self.transportCC = transportCC
        self.absoluteSendTime = absoluteSendTime
        self.payloadType = payloadType
        self.rtxPayloadType = rtxPayloadType
        self.congestionControl = congestionControl
        self.pacing = pacing
        self.keyframeRequestIntervalNs = keyframeRequestIntervalNs
    }
}
