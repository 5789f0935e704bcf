import RTP
import RTPSender
import RTPSession
import SDP
import Transport

/// Everything a plain-RTP stream's two ends must agree on, decided once: where it goes and from
/// which ports, the payload types (VP8, RTX, RED and ULPFEC), SSRCs, header extensions by URI, the RTCP
/// feedback the receiver may send (RFC 4585), the SRTP suite and key; and how the sender behaves
/// (`tuning`). `camrtp sdp` and `camrtp send` build the same plan from the same options and
/// render it, so a receiver started from one plays what the other sends and knows what it may ask for.
public struct SessionPlan: Sendable {
    public var destination: Endpoint
    /// Where RTCP goes; nil with `rtcp-mux` (RTCP on the RTP port, RFC 5761).
    public var rtcpDestination: Endpoint?
    /// Our RTP port, where feedback is read (RTCP on the next one unless multiplexed); 0 lets
    /// the system choose, and receivers then learn it from the packets.
    public var localPort: UInt16
    public var payloadType: UInt8
    /// RTX's payload type, announced when `tuning.retransmission` is `rtx`.
    public var rtxPayloadType: UInt8
    /// Set by `--ssrc`: written into the SDP as `a=ssrc` (RFC 5576) and used on the wire; the
    /// RTX stream then takes the next SSRC.
    public var fixedSSRC: UInt32?
    public var srtpKey: SRTPMasterKey?
    public var extensions: HeaderExtensionIDs
    public var frameRate: Double?
    /// Take feedback that is not SRTCP on an SRTP session (Janus sends it plain).
    public var acceptsPlainRTCP: Bool
    /// MTU, CNAME (in the SDP's `a=ssrc` and in every SDES), retransmission, congestion control,
    /// pacing.
    public var tuning: SenderTuning

    public init(
        destination: Endpoint, rtcpDestination: Endpoint?, localPort: UInt16 = 0, payloadType: UInt8 = 96,
        rtxPayloadType: UInt8 = 97, fixedSSRC: UInt32? = nil, srtpKey: SRTPMasterKey? = nil,
        extensions: HeaderExtensionIDs = HeaderExtensionIDs(), frameRate: Double? = nil, acceptsPlainRTCP: Bool = false,
        tuning: SenderTuning = SenderTuning()
    ) {
        self.destination = destination
        self.rtcpDestination = rtcpDestination
        self.localPort = localPort
        self.payloadType = payloadType
        self.rtxPayloadType = rtxPayloadType
        self.fixedSSRC = fixedSSRC
        self.srtpKey = srtpKey
        self.extensions = extensions
        self.frameRate = frameRate
        self.acceptsPlainRTCP = acceptsPlainRTCP
        self.tuning = tuning
    }

    /// What the receiver may send back (RFC 4585 §4.2): NACK when lost packets are repaired, PLI
    /// and FIR always (they bring a keyframe), transport-wide feedback with its extension.
    public var feedback: [RTCPFeedback] {
        var feedback: [RTCPFeedback] = tuning.retransmission == .off ? [] : [.nack]
        feedback += [.pli, .fir]
        if extensions.transportWideSequenceNumber != nil { feedback.append(.transportCC) }
        return feedback
    }

    /// RED's and ULPFEC's payload types when `tuning.fec` is not `off`: the first two dynamic
    /// types VP8 and RTX leave free.
    public var fecPayloadTypes: FECPayloadTypes? {
        guard tuning.fec != .off else { return nil }
        let taken: Set<UInt8> = tuning.retransmission == .rtx ? [payloadType, rtxPayloadType] : [payloadType]
        let free = (UInt8(96)...127).filter { !taken.contains($0) }
        return FECPayloadTypes(red: free[0], ulpfec: free[1])
    }

    /// The sender for this session: random SSRCs and starting points unless `--ssrc` fixed them.
    public func senderConfiguration() -> RTPSenderConfiguration {
        var media = RTPSessionParameters.random()
        if let fixedSSRC { media.ssrc = fixedSSRC }
        var rtxSSRC: UInt32?
        if tuning.retransmission == .rtx {
            rtxSSRC = retransmissionSSRC ?? .random(in: .min ... .max)
            if rtxSSRC == media.ssrc { rtxSSRC = media.ssrc &+ 1 }
        }
        return RTPSenderConfiguration(
            route: .udp(destination: destination, rtcpDestination: rtcpDestination, localPort: localPort), srtpKey: srtpKey,
            acceptsPlainRTCP: acceptsPlainRTCP,
            session: SendSessionConfiguration(
                tuning: tuning, encodings: [EncodingStreams(media: media, rtxSSRC: rtxSSRC)], payloadType: payloadType,
                rtxPayloadType: tuning.retransmission == .rtx ? rtxPayloadType : nil, extensions: extensions, fec: fecPayloadTypes))
    }

    /// Checks that the MTU carries media with these headers, extensions and SRTP tag.
    public func validate() throws(SendSessionError) {
        try senderConfiguration().validate()
    }

    /// The RTX SSRC written in the SDP: the one after a fixed media SSRC.
    private var retransmissionSSRC: UInt32? {
        guard tuning.retransmission == .rtx else { return nil }
        return fixedSSRC.map { $0 &+ 1 }
    }

    /// The SDP a receiver needs (RFC 8866): where to listen, VP8/90000 (and RTX, RED, ULPFEC), RTCP and its
    /// feedback (`RTP/AVPF`, `RTP/SAVPF` with SRTP), extensions (the playout delay only when the
    /// tuning asks for one), keys. Deterministic when the SSRC and key are fixed.
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
        if let id = extensions.absoluteCaptureTime {
            mappings.append(HeaderExtensionMapping(id: id, uri: RTPHeaderExtensionURI.absoluteCaptureTime))
        }
        if let id = extensions.playoutDelay, tuning.playoutDelay != nil {
            mappings.append(HeaderExtensionMapping(id: id, uri: RTPHeaderExtensionURI.playoutDelay))
        }
        let rtx = tuning.retransmission == .rtx ? RetransmissionFormat(payloadType: rtxPayloadType, ssrc: retransmissionSSRC) : nil
        return PlainRTPVideo(
            port: destination.port, payloadType: payloadType,
            rtcp: rtcpDestination.map { .port($0.port) } ?? .multiplexed,
            feedback: feedback, retransmission: rtx, fec: fecPayloadTypes.map { FECFormats(red: $0.red, ulpfec: $0.ulpfec) },
            extensions: mappings,
            source: fixedSSRC.map { SourceDescription(ssrc: $0, cname: tuning.cname) },
            frameRate: frameRate.map { Int($0.rounded()) },
            crypto: srtpKey.map { CryptoAttribute(suite: $0.suite.sdpName, key: InlineKey(base64: $0.base64EncodedKeyingMaterial())) })
    }
}
