/// One `m=` section and its fields and attributes (RFC 8866 section 5.14). Attributes the model
/// types are properties; the rest are kept in `otherAttributes`, in order.
public struct MediaDescription: Sendable, Hashable {
    public var kind: MediaKind
    /// 0 rejects the section (RFC 3264 section 6), unless `a=bundle-only` says it rides the bundle.
    public var port: UInt16
    /// `<port>/<count>` for layered encodings; nil when absent.
    public var portCount: UInt16?
    public var transportProtocol: TransportProtocol
    /// The payload types of an RTP `m=` line, in preference order.
    public var payloadFormats: [PayloadFormat]
    /// The formats of a non-RTP `m=` line, such as `webrtc-datachannel`; written after any payload types.
    public var otherFormats: [String]

    public var connection: ConnectionAddress?
    public var bandwidths: [Bandwidth]
    /// `i=`, `k=` and unknown letters, kept as written.
    public var otherFields: [SDPField]

    /// `a=mid` (RFC 5888 section 4).
    public var mid: String?
    /// `a=ice-ufrag`, `a=ice-pwd`, `a=ice-options` (RFC 8839 section 5.4 and 5.6).
    public var iceUsernameFragment: String?
    public var icePassword: String?
    public var iceOptions: [String]
    /// `a=fingerprint` (RFC 8122 section 5).
    public var fingerprints: [Fingerprint]
    /// `a=setup` (RFC 8842).
    public var setup: SetupRole?
    /// `a=msid` (RFC 8830).
    public var streamIDs: [MediaStreamID]
    /// `a=rtcp-fb:* <value>`: feedback for every payload type (RFC 4585 section 4.2).
    public var wildcardFeedback: [RTCPFeedback]
    public var rtcp: RTCPAttribute?
    /// `a=rtcp-mux` (RFC 5761 section 5.1.1): RTCP shares the RTP port.
    public var rtcpMux: Bool
    /// `a=rtcp-rsize` (RFC 5506 section 5): reduced-size RTCP is welcome.
    public var rtcpReducedSize: Bool
    public var extensions: [HeaderExtensionMapping]
    /// `a=framerate` (RFC 8866 section 6.12).
    public var frameRate: Double?
    public var crypto: [CryptoAttribute]
    public var sourceGroups: [SSRCGroup]
    public var sources: [SourceDescription]
    /// `a=rid` (RFC 8851 section 4): the RTP streams the section names by RID.
    public var rids: [RIDAttribute]
    /// `a=simulcast` (RFC 8853 section 5.1).
    public var simulcast: SimulcastAttribute?
    /// Nil when not written (then the session's, else `sendrecv`).
    public var direction: MediaDirection?
    public var otherAttributes: [Attribute]
    public var candidates: [Candidate]
    /// `a=end-of-candidates` (RFC 8840 section 8.2).
    public var endOfCandidates: Bool

    public init(
        kind: MediaKind, port: UInt16, transportProtocol: TransportProtocol, payloadFormats: [PayloadFormat] = [],
        otherFormats: [String] = []
    ) {
        self.kind = kind
        self.port = port
        self.transportProtocol = transportProtocol
        self.payloadFormats = payloadFormats
        self.otherFormats = otherFormats
        portCount = nil
        connection = nil
        bandwidths = []
        otherFields = []
        mid = nil
        iceUsernameFragment = nil
        icePassword = nil
        iceOptions = []
        fingerprints = []
        setup = nil
        streamIDs = []
        wildcardFeedback = []
        rtcp = nil
        rtcpMux = false
        rtcpReducedSize = false
        extensions = []
        frameRate = nil
        crypto = []
        sourceGroups = []
        sources = []
        rids = []
        simulcast = nil
        direction = nil
        otherAttributes = []
        candidates = []
        endOfCandidates = false
    }

    /// `a=bundle-only` (RFC 9143 section 6): port 0 yet carried on the bundle's transport.
    public var isBundleOnly: Bool { otherAttributes.contains { $0.name == "bundle-only" } }

    /// Port 0 without `a=bundle-only` (RFC 3264 section 6, RFC 9143 section 7.3.1).
    public var isRejected: Bool { port == 0 && !isBundleOnly }

    public func payloadFormat(_ payloadType: UInt8) -> PayloadFormat? {
        payloadFormats.first { $0.payloadType == payloadType }
    }

    /// The first payload type, in `m=` order, that carries `codec`.
    public func firstPayloadFormat(matching codec: RTPMap) -> PayloadFormat? {
        payloadFormats.first { $0.matches(codec) }
    }

    /// The feedback for one payload type: its own and the wildcard lines.
    public func feedback(for payloadType: UInt8) -> [RTCPFeedback] {
        wildcardFeedback + (payloadFormat(payloadType)?.feedback ?? [])
    }

    /// The first `rtx` format whose `apt` is `payloadType` (RFC 4588 section 8.6) at the same clock rate.
    public func retransmissionFormat(for payloadType: UInt8) -> PayloadFormat? {
        let clockRate = payloadFormat(payloadType)?.rtpmap?.clockRate
        return payloadFormats.first {
            $0.isRetransmission && $0.associatedPayloadType == payloadType && $0.rtpmap?.clockRate == clockRate
        }
    }
}
