import CongestionControl
import Pacing
import RTP
import RTPSender
import SDP
import Transport

/// Everything a plain-RTP stream's two ends must agree on, decided once: where it goes and from
/// which ports, the payload types (VP8 and RTX), SSRCs, header extensions by URI, the RTCP
/// feedback the receiver may send (RFC 4585), the SRTP suite and key. `camrtp sdp` and
/// `camrtp send` build the same plan from the same options and render it, so a receiver started
/// from one plays what the other sends and knows what it may ask for.
public struct SessionPlan: Sendable {
    /// How lost packets are repaired; with RTX its payload type is announced.
    public enum Retransmission: Sendable, Hashable {
        case off
        case resend
        case rtx(payloadType: UInt8)
    }

    public var destination: Endpoint
    /// Where RTCP goes; nil with `rtcp-mux` (RTCP on the RTP port, RFC 5761).
    public var rtcpDestination: Endpoint?
    /// Our RTP port, where feedback is read (RTCP on the next one unless multiplexed); 0 lets
    /// the system choose, and receivers then learn it from the packets.
    public var localPort: UInt16
    public var payloadType: UInt8
    public var mtu: Int
    /// Set by `--ssrc`: written into the SDP as `a=ssrc` (RFC 5576) and used on the wire; the
    /// RTX stream then takes the next SSRC.
    public var fixedSSRC: UInt32?
    public var srtpKey: SRTPMasterKey?
    public var extensions: HeaderExtensionIDs
    public var retransmission: Retransmission
    public var frameRate: Double?
    /// RTCP CNAME (RFC 3550 §6.5.1), in the SDP's `a=ssrc` and in every SDES.
    public var cname: String
    /// Take feedback that is not SRTCP on an SRTP session (Janus sends it plain).
    public var acceptsPlainRTCP: Bool

    public init(
        destination: Endpoint, rtcpDestination: Endpoint?, localPort: UInt16 = 0, payloadType: UInt8 = 96, mtu: Int = 1200,
        fixedSSRC: UInt32? = nil, srtpKey: SRTPMasterKey? = nil, extensions: HeaderExtensionIDs = HeaderExtensionIDs(),
        retransmission: Retransmission = .resend, frameRate: Double? = nil, cname: String = "camrtp", acceptsPlainRTCP: Bool = false
    ) {
        self.destination = destination
        self.rtcpDestination = rtcpDestination
        self.localPort = localPort
        self.payloadType = payloadType
        self.mtu = mtu
        self.fixedSSRC = fixedSSRC
        self.srtpKey = srtpKey
        self.extensions = extensions
        self.retransmission = retransmission
        self.frameRate = frameRate
        self.cname = cname
        self.acceptsPlainRTCP = acceptsPlainRTCP
    }

    /// What the receiver may send back (RFC 4585 §4.2): NACK when lost packets are repaired, PLI
    /// and FIR always (they bring a keyframe), transport-wide feedback with its extension.
    public var feedback: [RTCPFeedback] {
        var feedback: [RTCPFeedback] = retransmission == .off ? [] : [.nack]
        feedback += [.pli, .fir]
        if extensions.transportWideSequenceNumber != nil { feedback.append(.transportCC) }
        return feedback
    }

    /// The sender's settings for this session: random SSRCs and starting points unless `--ssrc`
    /// fixed them, and the rate and pacing the caller chose.
    public func senderConfiguration(
        congestionControl: CongestionControllerConfiguration = RTPSenderConfiguration.defaultCongestionControl,
        pacing: PacerConfiguration = PacerConfiguration()
    ) -> RTPSenderConfiguration {
        var session = RTPSessionParameters.random()
        if let fixedSSRC { session.ssrc = fixedSSRC }
        let retransmissionMode: RetransmissionMode = switch retransmission {
        case .off: .off
        case .resend: .resend
        case .rtx(let payloadType): .rtx(payloadType: payloadType, ssrc: retransmissionSSRC ?? .random(in: .min ... .max))
        }
        return RTPSenderConfiguration(
            route: .udp(destination: destination, rtcpDestination: rtcpDestination, localPort: localPort),
            payloadType: payloadType, mtu: mtu, session: session, srtpKey: srtpKey, extensions: extensions,
            retransmission: retransmissionMode,
            cname: cname, acceptsPlainRTCP: acceptsPlainRTCP, congestionControl: congestionControl, pacing: pacing)
    }

    /// Checks that the MTU carries media with these headers, extensions and SRTP tag.
    public func validate() throws(RTPSenderError) {
        try senderConfiguration().validate()
    }

    /// The RTX SSRC written in the SDP: the one after a fixed media SSRC.
    private var retransmissionSSRC: UInt32? {
        guard case .rtx = retransmission else { return nil }
        return fixedSSRC.map { $0 &+ 1 }
    }

    /// The SDP a receiver needs (RFC 8866): where to listen, VP8/90000 (and RTX), RTCP and its
    /// feedback (`RTP/AVPF`, `RTP/SAVPF` with SRTP), extensions, keys. Deterministic when the
    /// SSRC and key are fixed.
    public var sessionDescription: SessionDescription {
        let address: ConnectionAddress = destination.family == .ipv4 ? .ipv4(destination.address) : .ipv6(destination.address)
        return SessionDescription(
            origin: Origin(sessionID: UInt64(fixedSSRC ?? 0), address: address), connection: address, video: videoSection)
    }

    /// The plan's `m=video` section.
    public var videoSection: PlainRTPVideo {
        var mappings: [HeaderExtensionMapping] = []
        if let id = extensions.absoluteSendTime { mappings.append(HeaderExtensionMapping(id: id, uri: RTPHeaderExtensionURI.absoluteSendTime)) }
        if let id = extensions.transportWideSequenceNumber {
            mappings.append(HeaderExtensionMapping(id: id, uri: RTPHeaderExtensionURI.transportWideSequenceNumber))
        }
        if let id = extensions.videoOrientation { mappings.append(HeaderExtensionMapping(id: id, uri: RTPHeaderExtensionURI.videoOrientation)) }
        var rtx: RetransmissionFormat?
        if case .rtx(let payloadType) = retransmission { rtx = RetransmissionFormat(payloadType: payloadType, ssrc: retransmissionSSRC) }
        return PlainRTPVideo(
            port: destination.port, payloadType: payloadType,
            rtcp: rtcpDestination.map { .port($0.port) } ?? .multiplexed,
            feedback: feedback, retransmission: rtx, extensions: mappings,
            source: fixedSSRC.map { SourceDescription(ssrc: $0, cname: cname) },
            frameRate: frameRate.map { Int($0.rounded()) },
            crypto: srtpKey.map { CryptoAttribute(suite: $0.suite.sdpName, key: InlineKey(base64: $0.base64EncodedKeyingMaterial())) })
    }
}
