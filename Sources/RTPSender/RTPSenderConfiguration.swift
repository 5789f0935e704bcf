import CongestionControl
import Pacing
import RTP
import Transport

/// How the sender answers receivers that report packets lost (generic NACK, RFC 4585 §6.2.1).
public enum RetransmissionMode: Sendable, Hashable {
    /// Lost packets stay lost.
    case off
    /// The stored packet goes out again unchanged on the media SSRC, which every receiver
    /// understands (libsrtp2 allows the repeated index with `allow_repeat_tx`).
    case resend
    /// RFC 4588 retransmission on its own SSRC and payload type, original sequence number first.
    case rtx(payloadType: UInt8, ssrc: UInt32)

    /// Whether copies (retransmissions, padding) leave on the RTX SSRC rather than the media SSRC.
    var usesRTX: Bool {
        if case .rtx = self { true } else { false }
    }
}

/// The RFC 8285 one-byte IDs the stream writes, by extension; nil leaves one out.
public struct HeaderExtensionIDs: Sendable, Hashable {
    /// `http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time`, stamped as packets leave.
    public var absoluteSendTime: UInt8?
    /// `urn:3gpp:video-orientation` (CVO), on the last packet of a frame when needed.
    public var videoOrientation: UInt8?
    /// The transport-wide sequence number (draft-holmer-rmcat-transport-wide-cc-extensions-01),
    /// stamped on every packet as it leaves.
    public var transportWideSequenceNumber: UInt8?

    public init(absoluteSendTime: UInt8? = nil, videoOrientation: UInt8? = nil, transportWideSequenceNumber: UInt8? = nil) {
        self.absoluteSendTime = absoluteSendTime
        self.videoOrientation = videoOrientation
        self.transportWideSequenceNumber = transportWideSequenceNumber
    }

    /// The IDs in use, for validation.
    var all: [UInt8] { [absoluteSendTime, videoOrientation, transportWideSequenceNumber].compactMap { $0 } }
}

/// Everything an `RTPVideoSender` needs, decided before it starts: where the stream goes (UDP
/// sockets of its own, or a transport such as a WebRTC connection), what the packets look like,
/// how feedback is answered.
public struct RTPSenderConfiguration: Sendable {
    public var route: SenderRoute
    public var payloadType: UInt8
    /// The largest whole packet: RTP header, extensions, payload and the SRTP tag.
    public var mtu: Int
    /// SSRC, first sequence number, timestamp offset and first PictureID.
    public var session: RTPSessionParameters
    /// The key our packets are protected with; nil sends plain RTP.
    public var srtpKey: SRTPMasterKey?
    /// The key the peer's SRTCP is protected with, when it differs from ours (DTLS-SRTP derives
    /// one per direction, RFC 5764 §4.2); nil uses `srtpKey`, as SDES sessions do.
    public var feedbackSRTPKey: SRTPMasterKey?
    public var extensions: HeaderExtensionIDs
    public var retransmission: RetransmissionMode
    /// RTCP CNAME (RFC 3550 §6.5.1).
    public var cname: String
    /// Accept feedback that is not SRTCP on an SRTP session (Janus sends plain RTCP).
    public var acceptsPlainRTCP: Bool
    /// Start, minimum and maximum rate, probing. The sender sets the encoder's target from it, so
    /// the start should be the rate the encoder was configured with.
    public var congestionControl: CongestionControllerConfiguration
    public var pacing: PacerConfiguration
    /// Keyframe requests are honoured at most this often (libwebrtc: 300 ms).
    public var keyframeRequestIntervalNs: Int64

    public init(
        route: SenderRoute, payloadType: UInt8 = 96, mtu: Int = 1200, session: RTPSessionParameters = .random(),
        srtpKey: SRTPMasterKey? = nil, feedbackSRTPKey: SRTPMasterKey? = nil,
        extensions: HeaderExtensionIDs = HeaderExtensionIDs(), retransmission: RetransmissionMode = .resend,
        cname: String = "camrtp", acceptsPlainRTCP: Bool = false,
        congestionControl: CongestionControllerConfiguration = RTPSenderConfiguration.defaultCongestionControl,
        pacing: PacerConfiguration = PacerConfiguration(), keyframeRequestIntervalNs: Int64 = 300_000_000
    ) {
        self.route = route
        self.payloadType = payloadType
        self.mtu = mtu
        self.session = session
        self.srtpKey = srtpKey
        self.feedbackSRTPKey = feedbackSRTPKey
        self.extensions = extensions
        self.retransmission = retransmission
        self.cname = cname
        self.acceptsPlainRTCP = acceptsPlainRTCP
        self.congestionControl = congestionControl
        self.pacing = pacing
        self.keyframeRequestIntervalNs = keyframeRequestIntervalNs
    }

    /// Checks what would stop the sender: extension IDs, and an MTU that must carry a header with
    /// every extension, the VP8 descriptor, a byte of payload, the SRTP tag and the RTX prefix.
    public func validate() throws(RTPSenderError) {
        let stream = try RTPStream(ssrc: session.ssrc, payloadType: payloadType, session: session, extensions: extensions)
        let minimum = stream.headerSize + stream.orientationCost + VP8Payloader.descriptorSize + 1 + srtpOverhead
            + retransmissionOverhead
        guard mtu >= minimum else { throw .mtuTooSmall(mtu: mtu, minimum: minimum) }
    }

    /// 1500 kbit/s to start, as `VP8EncoderSettings` does, never above it and down to 30 kbit/s
    /// (libwebrtc's floor) when the network asks.
    public static let defaultCongestionControl = CongestionControllerConfiguration(
        startBitrateBps: 1_500_000, minBitrateBps: 30_000, maxBitrateBps: 1_500_000)

    /// Bytes every packet keeps free for the SRTP tag.
    var srtpOverhead: Int { srtpKey?.suite.rtpAuthenticationTagLength ?? 0 }

    /// Bytes an RTX packet adds to the original it carries (its original sequence number).
    var retransmissionOverhead: Int {
        if case .rtx = retransmission { return RTXPacket.originalSequenceNumberSize }
        return 0
    }
}
