import RTPSession

/// Everything a `WebRTCVideoSender` is built from: the transport (ICE, DTLS, timeouts), how the
/// sender behaves (`tuning`: MTU, CNAME, retransmission, congestion control, pacing) and what
/// it offers. Payload types and extension ids are ours in an offer and the peer's in an answer.
public struct WebRTCSenderConfiguration: Sendable {
    public var transport: WebRTCTransportOptions
    /// Its MTU is the largest SRTP packet (1200 fits any path with IPv6's minimum MTU, as browsers
    /// assume); `rtx` falls back to resending when the peer has no RTX, and to nothing when it
    /// does not NACK; FEC is offered unless `off`, and used when the peer has RED and ULPFEC.
    public var tuning: SenderTuning
    /// Our media SSRC (nil: random), written as `a=ssrc`; RTX takes another random one.
    public var ssrc: UInt32?
    /// `a=msid` stream id, so that a browser files the track under it.
    public var streamID: String
    /// Offer the transport-wide sequence number extension and transport-cc feedback.
    public var transportCC: Bool
    /// Offer abs-send-time, which REMB-only receivers estimate from.
    public var absoluteSendTime: Bool
    /// Offer or accept abs-capture-time, the frames' capture time for the receiver.
    public var absoluteCaptureTime: Bool
    /// Payload types and the mid of our offers (answers take the offer's).
    public var payloadType: UInt8
    public var rtxPayloadType: UInt8
    public var fecPayloadTypes: FECPayloadTypes

    public init(
        transport: WebRTCTransportOptions = WebRTCTransportOptions(), tuning: SenderTuning = SenderTuning(retransmission: .rtx, fec: .auto),
        ssrc: UInt32? = nil, streamID: String = "camrtp", transportCC: Bool = true, absoluteSendTime: Bool = true,
        absoluteCaptureTime: Bool = true, payloadType: UInt8 = 96, rtxPayloadType: UInt8 = 97,
        fecPayloadTypes: FECPayloadTypes = FECPayloadTypes(red: 98, ulpfec: 99)
    ) {
        self.transport = transport
        self.tuning = tuning
        self.ssrc = ssrc
        self.streamID = streamID
        self.transportCC = transportCC
        self.absoluteSendTime = absoluteSendTime
        self.absoluteCaptureTime = absoluteCaptureTime
        self.payloadType = payloadType
        self.rtxPayloadType = rtxPayloadType
        self.fecPayloadTypes = fecPayloadTypes
    }
}
