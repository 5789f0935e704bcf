import RTP
import RTPSession
import SDP

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
    /// The simulcast encodings an offer carries, in the order its `a=rid` and `a=simulcast:send`
    /// lines list them, which SFUs read differently, so the caller sets it for its receiver;
    /// empty: one encoding, no simulcast. Each names the encoder's `encodingIndex` (0 the lowest
    /// resolution) and a RID of 1 to 16 letters, digits, - or _, which its packets carry
    /// (RFC 8852). Answers ignore it.
    public var simulcast: [SimulcastEncoding]

    public init(
        transport: WebRTCTransportOptions = WebRTCTransportOptions(), tuning: SenderTuning = SenderTuning(retransmission: .rtx, fec: .auto),
        ssrc: UInt32? = nil, streamID: String = "camrtp", transportCC: Bool = true, absoluteSendTime: Bool = true,
        absoluteCaptureTime: Bool = true, payloadType: UInt8 = 96, rtxPayloadType: UInt8 = 97,
        fecPayloadTypes: FECPayloadTypes = FECPayloadTypes(red: 98, ulpfec: 99), simulcast: [SimulcastEncoding] = []
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
        self.simulcast = simulcast
    }

    /// Checks the simulcast encodings: RIDs the RTP extension can carry, each RID and encoding
    /// index once.
    func validateSimulcast() throws(WebRTCError) {
        for (position, encoding) in simulcast.enumerated() {
            guard RTPStreamID(encoding.rid) != nil else {
                throw .invalidSimulcast("rid \"\(encoding.rid)\" is not 1 to 16 letters, digits, - or _")
            }
            guard encoding.encodingIndex >= 0 else { throw .invalidSimulcast("encoding index \(encoding.encodingIndex) is negative") }
            let others = simulcast[..<position]
            if others.contains(where: { $0.rid == encoding.rid }) { throw .invalidSimulcast("rid \"\(encoding.rid)\" is given twice") }
            if others.contains(where: { $0.encodingIndex == encoding.encodingIndex }) {
                throw .invalidSimulcast("encoding index \(encoding.encodingIndex) is given two rids")
            }
        }
    }
}
