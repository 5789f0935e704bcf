/// What both sides agreed on for our video section: what the RTP sender, the ICE agent and the
/// DTLS code are configured with.
public struct NegotiatedVideo: Sendable, Hashable {
    /// The section's index, the same in offer and answer.
    public var mediaIndex: Int
    public var mid: String?
    public var payloadType: UInt8
    /// Nil when either side has no RTX.
    public var rtxPayloadType: UInt8?
    /// RED and ULPFEC; nil when either side has no FEC.
    public var fec: FECFormats?
    /// The feedback both sides support, in our preference order.
    public var feedback: [RTCPFeedback]
    /// The extensions both sides use, with the ids to write.
    public var extensions: [HeaderExtensionMapping]
    /// Our direction after negotiation.
    public var direction: MediaDirection
    public var rtcpReducedSize: Bool
    public var localDTLSRole: DTLSRole
    public var remote: RemoteTransportParameters
    /// The peer's `a=ssrc` and `a=ssrc-group` lines, for the streams it sends.
    public var remoteSources: [SourceDescription]
    public var remoteSourceGroups: [SSRCGroup]
    /// The encodings to send, lowest `encodingIndex` first: with simulcast those the answer
    /// kept, each with its RID; else one (`SimulcastNegotiation.sentEncodings`).
    public var sentEncodings: [SentEncoding]

    public init(
        mediaIndex: Int, mid: String?, payloadType: UInt8, rtxPayloadType: UInt8?, fec: FECFormats? = nil, feedback: [RTCPFeedback],
        extensions: [HeaderExtensionMapping], direction: MediaDirection, rtcpReducedSize: Bool, localDTLSRole: DTLSRole,
        remote: RemoteTransportParameters, remoteSources: [SourceDescription] = [], remoteSourceGroups: [SSRCGroup] = [],
        sentEncodings: [SentEncoding] = [SentEncoding(encodingIndex: 0)]
    ) {
        self.mediaIndex = mediaIndex
        self.mid = mid
        self.payloadType = payloadType
        self.rtxPayloadType = rtxPayloadType
        self.fec = fec
        self.feedback = feedback
        self.extensions = extensions
        self.direction = direction
        self.rtcpReducedSize = rtcpReducedSize
        self.localDTLSRole = localDTLSRole
        self.remote = remote
        self.remoteSources = remoteSources
        self.remoteSourceGroups = remoteSourceGroups
        self.sentEncodings = sentEncodings
    }
}

/// The peer's ICE and DTLS values, for the ICE agent and the DTLS code.
public struct RemoteTransportParameters: Sendable, Hashable {
    public var iceCredentials: ICEParameters
    public var iceLite: Bool
    public var iceOptions: [String]
    public var fingerprints: [Fingerprint]
    public var setup: SetupRole
    public var candidates: [Candidate]
    public var endOfCandidates: Bool

    public init(
        iceCredentials: ICEParameters, iceLite: Bool = false, iceOptions: [String] = [], fingerprints: [Fingerprint],
        setup: SetupRole, candidates: [Candidate] = [], endOfCandidates: Bool = false
    ) {
        self.iceCredentials = iceCredentials
        self.iceLite = iceLite
        self.iceOptions = iceOptions
        self.fingerprints = fingerprints
        self.setup = setup
        self.candidates = candidates
        self.endOfCandidates = endOfCandidates
    }

    /// Reads the transport of the section at `index`. A section without ICE credentials of its
    /// own or at session level (`a=bundle-only`) uses its BUNDLE group's tagged (first) section's
    /// transport (RFC 9143 section 7).
    init(_ description: SessionDescription, mediaIndex index: Int, as type: SDPType) throws(SDPNegotiationError) {
        let section = description.media[index]
        var transport = section
        if description.iceCredentials(for: section) == nil, let mid = section.mid, let bundle = description.bundleGroup,
            bundle.mids.contains(mid), let tag = bundle.mids.first,
            let tagged = description.media.first(where: { $0.mid == tag && !$0.isRejected })
        {
            transport = tagged
        }
        guard let credentials = description.iceCredentials(for: transport) else { throw .missingICECredentials(type) }
        let fingerprints = description.fingerprints(for: transport)
        guard !fingerprints.isEmpty else { throw .missingFingerprint(type) }
        // An offer without a=setup is `active` (RFC 4145 section 4); an answer must say (RFC 5763 section 5).
        guard let setup = description.setupRole(for: transport) ?? (type == .offer ? .active : nil) else {
            throw .missingSetupRole(type)
        }
        self.init(
            iceCredentials: credentials, iceLite: description.iceLite, iceOptions: description.iceOptions(for: transport),
            fingerprints: fingerprints, setup: setup, candidates: transport.candidates, endOfCandidates: transport.endOfCandidates)
    }
}
