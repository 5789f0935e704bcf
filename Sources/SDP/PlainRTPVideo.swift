/// The `m=video` section of a declarative SDP for one VP8 stream sent to a plain RTP receiver
/// such as ffmpeg, ffplay, GStreamer's sdpdemux or VLC. The port is where the receiver listens.
///
/// With `feedback` the profile becomes `RTP/AVPF` (`RTP/SAVPF` with SDES SRTP, RFC 5124), which
/// is what makes ffmpeg send NACK and PLI; `retransmission` adds an RTX payload type (RFC 4588)
/// and, with both SSRCs fixed, `a=ssrc-group:FID`; `fec` adds RED and ULPFEC (RFC 2198, RFC 5109).
public struct PlainRTPVideo: Sendable, Hashable {
    public var port: UInt16
    /// Dynamic payload type, 96…127 (RFC 3551 section 6).
    public var payloadType: UInt8
    /// `a=rtpmap` encoding name and clock rate: VP8/90000 (RFC 7741 section 6.1).
    public var encodingName: String
    public var clockRate: UInt32
    public var rtcp: RTCPAddressing?
    /// `a=rtcp-fb:PT VALUE` entries (RFC 4585 section 4.2), such as `.nack` and `.pli`.
    public var feedback: [RTCPFeedback]
    public var retransmission: RetransmissionFormat?
    public var fec: FECFormats?
    public var extensions: [HeaderExtensionMapping]
    /// `a=ssrc:SSRC cname:NAME`, written only for a fixed SSRC.
    public var source: SourceDescription?
    /// `a=framerate` (RFC 8866 section 6.12).
    public var frameRate: Int?
    /// With a crypto attribute the profile is secure (RFC 3711 section 12).
    public var crypto: CryptoAttribute?
    /// From the sender's side: the stream flows one way, so `sendonly`.
    public var direction: MediaDirection

    public init(
        port: UInt16,
        payloadType: UInt8 = 96,
        encodingName: String = "VP8",
        clockRate: UInt32 = 90_000,
        rtcp: RTCPAddressing? = nil,
        feedback: [RTCPFeedback] = [],
        retransmission: RetransmissionFormat? = nil,
        fec: FECFormats? = nil,
        extensions: [HeaderExtensionMapping] = [],
        source: SourceDescription? = nil,
        frameRate: Int? = nil,
        crypto: CryptoAttribute? = nil,
        direction: MediaDirection = .sendonly
    ) {
        self.port = port
        self.payloadType = payloadType
        self.encodingName = encodingName
        self.clockRate = clockRate
        self.rtcp = rtcp
        self.feedback = feedback
        self.retransmission = retransmission
        self.fec = fec
        self.extensions = extensions
        self.source = source
        self.frameRate = frameRate
        self.crypto = crypto
        self.direction = direction
    }

    /// `RTP/AVP`, `RTP/AVPF` with feedback, `RTP/SAVP` or `RTP/SAVPF` with SRTP.
    public var transportProtocol: TransportProtocol {
        .rtp(secure: crypto != nil, feedback: !feedback.isEmpty)
    }

    public var mediaDescription: MediaDescription {
        var formats = [PayloadFormat(
            payloadType: payloadType, rtpmap: RTPMap(encodingName: encodingName, clockRate: clockRate), feedback: feedback)]
        if let retransmission {
            formats.append(.retransmission(payloadType: retransmission.payloadType, associatedPayloadType: payloadType, clockRate: clockRate))
        }
        formats += fec?.payloadFormats ?? []
        var section = MediaDescription(kind: .video, port: port, transportProtocol: transportProtocol, payloadFormats: formats)
        switch rtcp {
        case .port(let rtcpPort): section.rtcp = RTCPAttribute(port: rtcpPort)
        case .multiplexed: section.rtcpMux = true
        case nil: break
        }
        section.extensions = extensions
        section.frameRate = frameRate.map(Double.init)
        section.crypto = crypto.map { [$0] } ?? []
        if let source {
            section.sources = [source]
            if let rtxSSRC = retransmission?.ssrc {
                section.sourceGroups = [.flowIdentification(media: source.ssrc, retransmission: rtxSSRC)]
                section.sources.append(SourceDescription(ssrc: rtxSSRC, attributes: source.attributes))
            }
        }
        section.direction = direction
        return section
    }
}

/// The RTX format of a plain-RTP section (RFC 4588 section 8): `a=rtpmap:PT rtx/90000`,
/// `a=fmtp:PT apt=<media PT>`, and its SSRC when fixed.
public struct RetransmissionFormat: Sendable, Hashable {
    public var payloadType: UInt8
    public var ssrc: UInt32?

    public init(payloadType: UInt8 = 97, ssrc: UInt32? = nil) {
        self.payloadType = payloadType
        self.ssrc = ssrc
    }
}

/// Where the receiver's RTCP goes.
public enum RTCPAddressing: Sendable, Hashable {
    /// `a=rtcp:PORT` (RFC 3605 section 2.1), for a port other than or equal to RTP + 1.
    case port(UInt16)
    /// `a=rtcp-mux` (RFC 5761 section 5.1.1): RTCP shares the RTP port.
    case multiplexed
}

extension SessionDescription {
    /// A declarative description of one plain-RTP video stream, with `c=` at session level.
    public init(origin: Origin, sessionName: String = "camrtp", connection: ConnectionAddress, video: PlainRTPVideo) {
        self.init(origin: origin, sessionName: sessionName, connection: connection, media: [video.mediaDescription])
    }
}
