/// Offer/answer for one VP8 video section over WebRTC (JSEP, RFC 8829; RFC 3264), pure: it
/// writes our offer (WHIP publisher), answers a remote offer (WHEP endpoint), and checks a
/// remote answer against our offer. ICE and DTLS values come in from the agents that own them.
public struct VideoNegotiator: Sendable {
    public var sender: LocalVideoSender
    public var transport: LocalTransportParameters
    /// `o=`; bump `sessionVersion` for each new description of the same session.
    public var origin: Origin

    public init(sender: LocalVideoSender, transport: LocalTransportParameters, origin: Origin) {
        self.sender = sender
        self.transport = transport
        self.origin = origin
    }

    /// Our offer: one `UDP/TLS/RTP/SAVPF` video section, bundled, `a=setup:actpass`, VP8 with
    /// our feedback, RTX when we have an RTX SSRC, RED and ULPFEC when we have FEC, our
    /// extensions, and receiver reference time reports (we answer them). With simulcast, the
    /// encodings' `a=rid` and `a=simulcast:send` lines instead of `a=ssrc`: the streams are named
    /// by the RID their packets carry (RFC 8853 section 5.5), as Chrome's offers do.
    public func makeOffer() -> SessionDescription {
        var section = videoSection(
            transportProtocol: .udpTLSRTPSAVPF, mid: sender.mid, payloadType: sender.payloadType,
            rtxPayloadType: sender.rtxSSRC == nil ? nil : sender.rtxPayloadType, fec: sender.fec, feedback: sender.feedback,
            extensions: sender.extensions, direction: sender.direction, setup: .actpass,
            reducedSizeRTCP: sender.acceptsReducedSizeRTCP, receiverReferenceTimeReports: true)
        if !sender.simulcast.isEmpty {
            section.sources = []
            section.sourceGroups = []
            SimulcastNegotiation.offer(sender.simulcast, into: &section)
        }
        var offer = SessionDescription(origin: origin, media: [section])
        offer.groups = [.bundle([sender.mid])]
        offer.iceLite = transport.iceLite
        return offer
    }

    /// Our answer to `offer`: the first usable video section with VP8 is answered, every other
    /// section is rejected (port 0).
    public func makeAnswer(to offer: SessionDescription) throws(SDPNegotiationError) -> NegotiatedAnswer {
        let (index, section, video) = try answerVideoSection(to: offer)
        var answer = SessionDescription(origin: origin)
        answer.media = offer.media.enumerated().map { $0.offset == index ? section : Self.rejected($0.element) }
        if let mid = section.mid, offer.bundleGroup?.mids.contains(mid) == true {
            answer.groups = [.bundle([mid])]
        }
        answer.iceLite = transport.iceLite
        return NegotiatedAnswer(sessionDescription: answer, video: video)
    }

    /// The answer's video section for `offer` alone, with its index and what it agrees on:
    /// the first VP8 payload type and its RTX (by `apt`), RED and ULPFEC when both sides have
    /// them (our repairs go as RTX of VP8, so RTX of RED is not answered), our feedback that the offer lists,
    /// the offer's ids for the extensions we write, receiver reference time reports when offered
    /// (RFC 3611 section 5.1), and the setup role flipped (RFC 8842 section 5.3).
    public func answerVideoSection(
        to offer: SessionDescription
    ) throws(SDPNegotiationError) -> (index: Int, section: MediaDescription, video: NegotiatedVideo) {
        let usable = offer.media.indices.filter { offer.media[$0].kind == .video && !offer.media[$0].isRejected }
        guard !usable.isEmpty else { throw .noVideoSection(.offer) }
        guard let index = usable.first(where: { offer.media[$0].firstPayloadFormat(matching: LocalVideoSender.codec) != nil }),
            let vp8 = offer.media[index].firstPayloadFormat(matching: LocalVideoSender.codec)
        else { throw .noMatchingCodec(LocalVideoSender.codec.encodingName, in: .offer) }
        let offered = offer.media[index]
        guard offered.transportProtocol.isSecureRTP else { throw .insecureTransport(offered.transportProtocol, in: .offer) }
        let remote = try RemoteTransportParameters(offer, mediaIndex: index, as: .offer)
        guard offered.rtcpMux else { throw .rtcpMuxRequired(.offer) }

        let localRole: DTLSRole
        switch remote.setup {
        case .actpass: localRole = transport.preferredAnswerRole
        case .active: localRole = .server
        case .passive: localRole = .client
        case .holdconn: throw .invalidSetupRole(.holdconn, in: .offer)
        }
        let offeredDirection = offer.direction(for: offered)
        let direction = offeredDirection.answer(wanting: sender.direction)
        guard direction != .inactive || sender.direction == .inactive else {
            throw .directionConflict(offered: offeredDirection, wanted: sender.direction)
        }

        let offeredFeedback = offered.feedback(for: vp8.payloadType)
        let feedback = sender.feedback.filter(offeredFeedback.contains)
        let rtx = sender.rtxSSRC == nil ? nil : offered.retransmissionFormat(for: vp8.payloadType)?.payloadType
        let fec = sender.fec == nil ? nil : FECFormats(in: offered)
        let ourURIs = Set(sender.extensions.map(\.uri))
        var answeredURIs = Set<String>()
        let extensions = offer.extensions(for: offered).filter { ourURIs.contains($0.uri) && answeredURIs.insert($0.uri).inserted }
            .map { HeaderExtensionMapping(id: $0.id, uri: $0.uri, direction: $0.direction?.reversed) }
        let reducedSize = offered.rtcpReducedSize && sender.acceptsReducedSizeRTCP

        let section = videoSection(
            transportProtocol: offered.transportProtocol, mid: offered.mid, payloadType: vp8.payloadType, rtxPayloadType: rtx,
            fec: fec, feedback: feedback, extensions: extensions, direction: direction, setup: localRole.setupRole,
            reducedSizeRTCP: reducedSize, receiverReferenceTimeReports: offered.hasReceiverReferenceTimeReports)
        let video = NegotiatedVideo(
            mediaIndex: index, mid: offered.mid, payloadType: vp8.payloadType, rtxPayloadType: rtx, fec: fec, feedback: feedback,
            extensions: extensions, direction: direction, rtcpReducedSize: reducedSize, localDTLSRole: localRole, remote: remote,
            remoteSources: offered.sources, remoteSourceGroups: offered.sourceGroups)
        return (index, section, video)
    }

    /// Checks a remote answer against the offer we made and returns what was agreed, with the
    /// simulcast encodings it leaves (`SimulcastNegotiation.sentEncodings`).
    public func acceptAnswer(_ answer: SessionDescription, to offer: SessionDescription) throws(SDPNegotiationError) -> NegotiatedVideo {
        guard answer.media.count == offer.media.count else {
            throw .mediaSectionCountMismatch(offered: offer.media.count, answered: answer.media.count)
        }
        guard let index = offer.media.firstIndex(where: { $0.kind == .video && !$0.isRejected }) else { throw .noVideoSection(.offer) }
        let (offered, answered) = (offer.media[index], answer.media[index])
        guard answered.kind == offered.kind, answered.mid == offered.mid else {
            throw .mediaSectionMismatch(index: index, offeredMid: offered.mid, answeredMid: answered.mid)
        }
        guard !answered.isRejected else { throw .videoRejected }
        guard answered.transportProtocol == offered.transportProtocol else {
            throw .protocolMismatch(offered: offered.transportProtocol, answered: answered.transportProtocol)
        }
        let remote = try RemoteTransportParameters(answer, mediaIndex: index, as: .answer)
        guard let localRole = remote.setup.dtlsRole?.peer else { throw .invalidSetupRole(remote.setup, in: .answer) }
        guard answered.rtcpMux else { throw .rtcpMuxRequired(.answer) }

        if let unoffered = answered.payloadFormats.first(where: { offered.payloadFormat($0.payloadType) == nil }) {
            throw .unofferedPayloadType(unoffered.payloadType)
        }
        guard let vp8 = answered.payloadFormats.first(where: {
            $0.matches(LocalVideoSender.codec) && offered.payloadFormat($0.payloadType)?.matches(LocalVideoSender.codec) == true
        }) else { throw .noMatchingCodec(LocalVideoSender.codec.encodingName, in: .answer) }
        let rtx = offered.retransmissionFormat(for: vp8.payloadType).flatMap { offeredRTX in
            answered.retransmissionFormat(for: vp8.payloadType)?.payloadType == offeredRTX.payloadType ? offeredRTX.payloadType : nil
        }
        // RED and ULPFEC are agreed when the answer keeps both as offered.
        let fec = FECFormats(in: answered).flatMap { agreed in
            offered.payloadFormat(agreed.red)?.matches(.red) == true && offered.payloadFormat(agreed.ulpfec)?.matches(.ulpfec) == true
                ? agreed : nil
        }
        let answeredFeedback = answered.feedback(for: vp8.payloadType)
        let feedback = sender.feedback.filter(answeredFeedback.contains)
        let offeredExtensions = offer.extensions(for: offered)
        let extensions = answer.extensions(for: answered)
        if let unoffered = extensions.first(where: { answered in
            !offeredExtensions.contains { $0.id == answered.id && $0.uri == answered.uri }
        }) {
            throw .unofferedExtension(id: unoffered.id, uri: unoffered.uri)
        }

        let offeredDirection = offer.direction(for: offered)
        let answeredDirection = answer.direction(for: answered)
        let direction = MediaDirection(
            sends: offeredDirection.sends && answeredDirection.receives, receives: offeredDirection.receives && answeredDirection.sends)
        guard offeredDirection.permits(answer: answeredDirection), direction != .inactive || offeredDirection == .inactive else {
            throw .invalidAnswerDirection(offered: offeredDirection, answered: answeredDirection)
        }
        let sentEncodings = try SimulcastNegotiation.sentEncodings(offered: sender.simulcast, answered: answered)
        return NegotiatedVideo(
            mediaIndex: index, mid: answered.mid, payloadType: vp8.payloadType, rtxPayloadType: rtx, fec: fec, feedback: feedback,
            extensions: extensions, direction: direction, rtcpReducedSize: offered.rtcpReducedSize && answered.rtcpReducedSize,
            localDTLSRole: localRole, remote: remote, remoteSources: answered.sources, remoteSourceGroups: answered.sourceGroups,
            sentEncodings: sentEncodings)
    }

    /// Our video section, for an offer or an answer.
    private func videoSection(
        transportProtocol: TransportProtocol, mid: String?, payloadType: UInt8, rtxPayloadType: UInt8?, fec: FECFormats?,
        feedback: [RTCPFeedback], extensions: [HeaderExtensionMapping], direction: MediaDirection, setup: SetupRole,
        reducedSizeRTCP: Bool, receiverReferenceTimeReports: Bool
    ) -> MediaDescription {
        var formats = [PayloadFormat.vp8(payloadType: payloadType, feedback: feedback)]
        if let rtxPayloadType {
            formats.append(.retransmission(payloadType: rtxPayloadType, associatedPayloadType: payloadType))
        }
        formats += fec?.payloadFormats ?? []
        let (port, connection) = transport.defaultAddress
        var section = MediaDescription(kind: .video, port: port, transportProtocol: transportProtocol, payloadFormats: formats)
        section.connection = connection
        section.mid = mid
        section.iceUsernameFragment = transport.iceCredentials.usernameFragment
        section.icePassword = transport.iceCredentials.password
        section.iceOptions = transport.iceOptions
        section.fingerprints = transport.fingerprints
        section.setup = setup
        section.rtcpMux = true
        section.rtcpReducedSize = reducedSizeRTCP
        section.extensions = extensions
        if receiverReferenceTimeReports { section.otherAttributes.append(.receiverReferenceTimeReports) }
        if direction.sends {
            section.streamIDs = sender.streamID.map { [$0] } ?? []
            section.sources = [SourceDescription(ssrc: sender.ssrc, cname: sender.cname)]
            if rtxPayloadType != nil, let rtxSSRC = sender.rtxSSRC {
                section.sourceGroups = [.flowIdentification(media: sender.ssrc, retransmission: rtxSSRC)]
                section.sources.append(SourceDescription(ssrc: rtxSSRC, cname: sender.cname))
            }
        }
        section.direction = direction
        section.candidates = transport.candidates
        section.endOfCandidates = transport.endOfCandidates
        return section
    }

    /// An answer's rejection of an offered section: port 0, one of its formats, its mid
    /// (RFC 3264 section 6, RFC 8829 section 5.3.1).
    private static func rejected(_ offered: MediaDescription) -> MediaDescription {
        var section = MediaDescription(
            kind: offered.kind, port: 0, transportProtocol: offered.transportProtocol,
            payloadFormats: offered.payloadFormats.prefix(1).map { PayloadFormat(payloadType: $0.payloadType, rtpmap: $0.rtpmap) },
            otherFormats: Array(offered.otherFormats.prefix(1)))
        section.connection = .unspecifiedIPv4
        section.mid = offered.mid
        return section
    }
}

/// Our answer and what it agreed on.
public struct NegotiatedAnswer: Sendable, Hashable {
    public var sessionDescription: SessionDescription
    public var video: NegotiatedVideo

    public init(sessionDescription: SessionDescription, video: NegotiatedVideo) {
        self.sessionDescription = sessionDescription
        self.video = video
    }
}
