/// The video we send over WebRTC and what of the feedback loop we support. Our offers use the
/// payload types, extension ids and mid given here; answers take the offer's.
public struct LocalVideoSender: Sendable, Hashable {
    public var ssrc: UInt32
    /// The RTX stream's SSRC (RFC 4588); nil sends no RTX and accepts none.
    public var rtxSSRC: UInt32?
    /// RTCP CNAME (RFC 3550 section 6.5.1), written as `a=ssrc:<ssrc> cname:<cname>`.
    public var cname: String
    /// `a=msid`, so the browser files the track under a stream of ours.
    public var streamID: MediaStreamID?
    /// The feedback we handle, in preference order.
    public var feedback: [RTCPFeedback]
    /// The header extensions we write, by URI; the ids are used in our offers.
    public var extensions: [HeaderExtensionMapping]
    /// `sendonly` for a WHIP publisher or a WHEP endpoint.
    public var direction: MediaDirection
    public var payloadType: UInt8
    public var rtxPayloadType: UInt8
    /// RED and ULPFEC's payload types in our offers; nil: FEC neither offered nor accepted.
    public var fec: FECFormats?
    public var mid: String
    /// Whether we accept reduced-size RTCP (RFC 5506); answered only when the offer has it too.
    public var acceptsReducedSizeRTCP: Bool
    /// The simulcast encodings our offers carry, in the order of their `a=rid` lines and
    /// `a=simulcast:send` (empty: no simulcast). With them the offer names the streams by RID
    /// and has no `a=ssrc`, as Chrome's; answers ignore them.
    public var simulcast: [SimulcastEncoding]

    public init(
        ssrc: UInt32, rtxSSRC: UInt32? = nil, cname: String, streamID: MediaStreamID? = nil, feedback: [RTCPFeedback],
        extensions: [HeaderExtensionMapping], direction: MediaDirection = .sendonly, payloadType: UInt8 = 96,
        rtxPayloadType: UInt8 = 97, fec: FECFormats? = nil, mid: String = "0", acceptsReducedSizeRTCP: Bool = true,
        simulcast: [SimulcastEncoding] = []
    ) {
        self.ssrc = ssrc
        self.rtxSSRC = rtxSSRC
        self.cname = cname
        self.streamID = streamID
        self.feedback = feedback
        self.extensions = extensions
        self.direction = direction
        self.payloadType = payloadType
        self.rtxPayloadType = rtxPayloadType
        self.fec = fec
        self.mid = mid
        self.acceptsReducedSizeRTCP = acceptsReducedSizeRTCP
        self.simulcast = simulcast
    }

    /// The one codec we encode.
    public static let codec = RTPMap.vp8
}

/// Our ICE and DTLS values, produced by the ICE agent and the DTLS code and carried into the
/// description as they are.
public struct LocalTransportParameters: Sendable, Hashable {
    public var iceCredentials: ICEParameters
    /// `a=ice-lite` (RFC 8445 section 2.5): a server that only answers checks.
    public var iceLite: Bool
    public var iceOptions: [String]
    /// The hashes of the certificate the DTLS code will present.
    public var fingerprints: [Fingerprint]
    /// Gathered candidates; the first one of component 1 is the default, shown in `m=` and `c=`.
    public var candidates: [Candidate]
    public var endOfCandidates: Bool
    /// Our role when an offer says `actpass`; JSEP's answerer takes `active` (RFC 8829 section 5.3.1).
    public var preferredAnswerRole: DTLSRole

    public init(
        iceCredentials: ICEParameters, iceLite: Bool = false, iceOptions: [String] = ["trickle"], fingerprints: [Fingerprint],
        candidates: [Candidate] = [], endOfCandidates: Bool = false, preferredAnswerRole: DTLSRole = .client
    ) {
        self.iceCredentials = iceCredentials
        self.iceLite = iceLite
        self.iceOptions = iceOptions
        self.fingerprints = fingerprints
        self.candidates = candidates
        self.endOfCandidates = endOfCandidates
        self.preferredAnswerRole = preferredAnswerRole
    }

    /// JSEP's default address: the default candidate's, else port 9 at 0.0.0.0 (RFC 8829 section 5.2.1).
    var defaultAddress: (port: UInt16, connection: ConnectionAddress) {
        guard let candidate = candidates.first(where: { $0.componentID == 1 }) else { return (9, .unspecifiedIPv4) }
        let connection: ConnectionAddress = candidate.address.contains(":") ? .ipv6(candidate.address) : .ipv4(candidate.address)
        return (candidate.port, connection)
    }
}
