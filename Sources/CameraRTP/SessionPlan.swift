import RTP
import SDP
import Transport

/// Everything a stream's two ends must agree on, decided once: where it goes, the payload type,
/// SSRC, header extensions, SRTP suite and key. `camrtp sdp` and `camrtp send` build the same
/// plan from the same options, so a receiver started from one plays what the other sends.
public struct SessionPlan: Sendable {
    public var destination: Endpoint
    /// Where RTCP goes; nil with `rtcp-mux` (RTCP on the RTP port, RFC 5761).
    public var rtcpDestination: Endpoint?
    public var payloadType: UInt8
    public var mtu: Int
    /// Set by `--ssrc`: written into the SDP as `a=ssrc` (RFC 5576) and used on the wire.
    public var fixedSSRC: UInt32?
    public var srtpKey: SRTPMasterKey?
    /// The CVO extension id (RFC 8285) when rotation is signalled rather than applied.
    public var videoOrientationExtensionID: UInt8?
    public var absoluteSendTimeExtensionID: UInt8?
    public var frameRate: Double?
    /// RTCP CNAME (RFC 3550 §6.5.1), in the SDP's `a=ssrc` and in every SDES.
    public var cname: String

    public init(
        destination: Endpoint, rtcpDestination: Endpoint?, payloadType: UInt8 = 96, mtu: Int = 1200,
        fixedSSRC: UInt32? = nil, srtpKey: SRTPMasterKey? = nil, videoOrientationExtensionID: UInt8? = nil,
        absoluteSendTimeExtensionID: UInt8? = nil, frameRate: Double? = nil, cname: String = "camrtp"
    ) {
        self.destination = destination
        self.rtcpDestination = rtcpDestination
        self.payloadType = payloadType
        self.mtu = mtu
        self.fixedSSRC = fixedSSRC
        self.srtpKey = srtpKey
        self.videoOrientationExtensionID = videoOrientationExtensionID
        self.absoluteSendTimeExtensionID = absoluteSendTimeExtensionID
        self.frameRate = frameRate
        self.cname = cname
    }

    /// The packetizer's settings: the MTU covers the whole packet, SRTP tag included.
    public var payloaderConfiguration: VP8Payloader.Configuration {
        VP8Payloader.Configuration(
            payloadType: payloadType, mtu: mtu, srtpOverhead: srtpKey?.suite.rtpAuthenticationTagLength ?? 0,
            videoOrientationExtensionID: videoOrientationExtensionID,
            absoluteSendTimeExtensionID: absoluteSendTimeExtensionID)
    }

    /// Checks that the MTU can carry media with these extensions and this suite.
    public func validate() throws(VP8PayloaderError) {
        let minimum = try VP8Payloader.minimumMTU(for: payloaderConfiguration)
        guard mtu >= minimum else { throw .mtuTooSmall(mtu: mtu, minimum: minimum) }
    }

    /// Random session values, with the SSRC fixed when `--ssrc` said so.
    public func makeSessionParameters() -> RTPSessionParameters {
        var parameters = RTPSessionParameters.random()
        if let fixedSSRC { parameters.ssrc = fixedSSRC }
        return parameters
    }

    /// The SDP a receiver needs (RFC 8866): where to listen, VP8/90000, RTCP, extensions, keys.
    /// Deterministic when the SSRC and key are fixed.
    public var sessionDescription: SessionDescription {
        sessionDescription(video: videoSection)
    }

    /// The plan's `m=video` section. To offer RTCP feedback (RTP/AVPF) or RTX, set its `feedback`
    /// and `retransmission` and pass it to `sessionDescription(video:)`.
    public var videoSection: PlainRTPVideo {
        var extensions: [HeaderExtensionMapping] = []
        if let id = absoluteSendTimeExtensionID { extensions.append(HeaderExtensionMapping(id: id, uri: RTPHeaderExtensionURI.absoluteSendTime)) }
        if let id = videoOrientationExtensionID { extensions.append(HeaderExtensionMapping(id: id, uri: RTPHeaderExtensionURI.videoOrientation)) }
        return PlainRTPVideo(
            port: destination.port, payloadType: payloadType,
            rtcp: rtcpDestination.map { .port($0.port) } ?? .multiplexed,
            extensions: extensions,
            source: fixedSSRC.map { SourceDescription(ssrc: $0, cname: cname) },
            frameRate: frameRate.map { Int($0.rounded()) },
            crypto: srtpKey.map { CryptoAttribute(suite: $0.suite.sdpName, key: InlineKey(base64: $0.base64EncodedKeyingMaterial())) })
    }

    /// The description with `video` as its media section, addressed to the destination.
    public func sessionDescription(video: PlainRTPVideo) -> SessionDescription {
        let address: ConnectionAddress = destination.family == .ipv4 ? .ipv4(destination.address) : .ipv6(destination.address)
        return SessionDescription(
            origin: Origin(sessionID: UInt64(fixedSSRC ?? 0), address: address), connection: address, video: video)
    }
}
