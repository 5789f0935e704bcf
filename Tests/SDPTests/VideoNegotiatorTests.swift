import SDP
import Testing

/// Values of one camrtp endpoint: the sender, a publisher's transport (trickle, no candidates
/// yet) and a WHEP server's (ICE lite, one host candidate, complete).
enum NegotiationSetup {
    static let absoluteSendTime = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"
    static let videoOrientation = "urn:3gpp:video-orientation"

    static let sender = LocalVideoSender(
        ssrc: 1_111_111_111, rtxSSRC: 2_222_222_222, cname: "camrtp", streamID: MediaStreamID(streamID: "camrtp", trackID: "video0"),
        feedback: [.nack, .pli, .fir, .transportCC, .remb],
        extensions: [
            HeaderExtensionMapping(id: 2, uri: absoluteSendTime), HeaderExtensionMapping(id: 3, uri: transportWideCC),
            HeaderExtensionMapping(id: 13, uri: videoOrientation),
        ],
        fec: FECFormats(red: 98, ulpfec: 99))
    static let credentials = ICEParameters(usernameFragment: "cAmR", password: "0123456789abcdefABCDEF+/")
    static let fingerprint = Fingerprint(hashFunction: .sha256, digest: Array(0..<32))
    static let fingerprintLine = "a=fingerprint:sha-256 " + (0..<32).map { hexByte($0) }.joined(separator: ":")
    static let publisherTransport = LocalTransportParameters(iceCredentials: credentials, fingerprints: [fingerprint])
    static let serverTransport = LocalTransportParameters(
        iceCredentials: credentials, iceLite: true, iceOptions: [], fingerprints: [fingerprint],
        candidates: [Candidate(foundation: "1", priority: 2_130_706_431, address: "127.0.0.2", port: 40000, type: .host)],
        endOfCandidates: true)
    static let origin = Origin(sessionID: 4242, address: .ipv4("127.0.0.1"))

    static let publisher = VideoNegotiator(sender: sender, transport: publisherTransport, origin: origin)
    static let server = VideoNegotiator(sender: sender, transport: serverTransport, origin: origin)

    private static func hexByte(_ value: Int) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[value >> 4], digits[value & 15]])
    }

    static func parse(_ fixture: Fixture) throws -> SessionDescription {
        try SessionDescription(parsing: fixture.text())
    }
}

@Suite("Offer/answer for one VP8 video section")
struct VideoNegotiatorTests {
    typealias Setup = NegotiationSetup

    /// The WHIP publisher's offer, byte for byte.
    @Test func ourOfferText() throws {
        let offer = Setup.publisher.makeOffer()
        #expect(offer.serialized() == [
            "v=0",
            "o=- 4242 1 IN IP4 127.0.0.1",
            "s=-",
            "t=0 0",
            "a=group:BUNDLE 0",
            "m=video 9 UDP/TLS/RTP/SAVPF 96 97 98 99",
            "c=IN IP4 0.0.0.0",
            "a=mid:0",
            "a=ice-ufrag:cAmR",
            "a=ice-pwd:0123456789abcdefABCDEF+/",
            "a=ice-options:trickle",
            Setup.fingerprintLine,
            "a=setup:actpass",
            "a=msid:camrtp video0",
            "a=rtpmap:96 VP8/90000",
            "a=rtcp-fb:96 nack",
            "a=rtcp-fb:96 nack pli",
            "a=rtcp-fb:96 ccm fir",
            "a=rtcp-fb:96 transport-cc",
            "a=rtcp-fb:96 goog-remb",
            "a=rtpmap:97 rtx/90000",
            "a=fmtp:97 apt=96",
            "a=rtpmap:98 red/90000",
            "a=rtpmap:99 ulpfec/90000",
            "a=rtcp-mux",
            "a=rtcp-rsize",
            "a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
            "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
            "a=extmap:13 urn:3gpp:video-orientation",
            "a=ssrc-group:FID 1111111111 2222222222",
            "a=ssrc:1111111111 cname:camrtp",
            "a=ssrc:2222222222 cname:camrtp",
            "a=sendonly",
            "a=rtcp-xr:rcvr-rtt=all",
            "",
        ].joined(separator: "\r\n"))
        #expect(try SessionDescription(parsing: offer.serialized()) == offer)
    }

    @Test func withoutAnRTXSSRCTheOfferHasNoRTX() {
        var publisher = Setup.publisher
        publisher.sender.rtxSSRC = nil
        let lines = publisher.makeOffer().lines()
        #expect(lines.contains("m=video 9 UDP/TLS/RTP/SAVPF 96 98 99"))
        #expect(!lines.contains { $0.contains("rtx") || $0.contains("ssrc-group") })
    }

    /// The WHEP endpoint's answer to Chromium's recvonly offer, byte for byte: VP8 96 with RTX 97,
    /// RED 118 and ULPFEC 120 (not the RTX of RED: repairs go as RTX of VP8), all five feedback
    /// types, the offer's extension ids, `a=setup:active` to `actpass`.
    @Test func ourAnswerToChromiumText() throws {
        let answer = try Setup.server.makeAnswer(to: Setup.parse(.chromiumRecvonlyOffer))
        #expect(answer.sessionDescription.serialized() == [
            "v=0",
            "o=- 4242 1 IN IP4 127.0.0.1",
            "s=-",
            "t=0 0",
            "a=group:BUNDLE 0",
            "a=ice-lite",
            "m=video 40000 UDP/TLS/RTP/SAVPF 96 97 118 120",
            "c=IN IP4 127.0.0.2",
            "a=mid:0",
            "a=ice-ufrag:cAmR",
            "a=ice-pwd:0123456789abcdefABCDEF+/",
            Setup.fingerprintLine,
            "a=setup:active",
            "a=msid:camrtp video0",
            "a=rtpmap:96 VP8/90000",
            "a=rtcp-fb:96 nack",
            "a=rtcp-fb:96 nack pli",
            "a=rtcp-fb:96 ccm fir",
            "a=rtcp-fb:96 transport-cc",
            "a=rtcp-fb:96 goog-remb",
            "a=rtpmap:97 rtx/90000",
            "a=fmtp:97 apt=96",
            "a=rtpmap:118 red/90000",
            "a=rtpmap:120 ulpfec/90000",
            "a=rtcp-mux",
            "a=rtcp-rsize",
            "a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
            "a=extmap:3 urn:3gpp:video-orientation",
            "a=extmap:4 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
            "a=ssrc-group:FID 1111111111 2222222222",
            "a=ssrc:1111111111 cname:camrtp",
            "a=ssrc:2222222222 cname:camrtp",
            "a=sendonly",
            "a=rtcp-xr:rcvr-rtt=all",
            "a=candidate:1 1 udp 2130706431 127.0.0.2 40000 typ host",
            "a=end-of-candidates",
            "",
        ].joined(separator: "\r\n"))
        #expect(try SessionDescription(parsing: answer.sessionDescription.serialized()) == answer.sessionDescription)

        let video = answer.video
        #expect(video.mediaIndex == 0 && video.mid == "0")
        #expect(video.payloadType == 96 && video.rtxPayloadType == 97)
        #expect(video.fec == FECFormats(red: 118, ulpfec: 120))
        #expect(video.feedback == [.nack, .pli, .fir, .transportCC, .remb])
        #expect(video.extensions == [
            HeaderExtensionMapping(id: 2, uri: Setup.absoluteSendTime), HeaderExtensionMapping(id: 3, uri: Setup.videoOrientation),
            HeaderExtensionMapping(id: 4, uri: transportWideCC),
        ])
        #expect(video.direction == .sendonly && video.rtcpReducedSize && video.localDTLSRole == .client)
        #expect(video.remote.iceCredentials == ICEParameters(usernameFragment: "0WuK", password: "lZtlIgvzC9X0cuUQhMBWQ/Xd"))
        #expect(video.remote.setup == .actpass && !video.remote.iceLite && video.remote.iceOptions == ["trickle"])
        #expect(video.remote.fingerprints.first?.digest.first == 0x63)
    }

    /// Audio and data are rejected with port 0 and keep their mids; only video stays bundled.
    @Test func answeringChromiumsAudioVideoDataOfferRejectsAllButVideo() throws {
        let answer = try Setup.publisher.makeAnswer(to: Setup.parse(.chromiumSendrecvOffer))
        let sections = answer.sessionDescription.media
        #expect(sections.map(\.port) == [0, 9, 0])
        #expect(answer.sessionDescription.groups == [.bundle(["1"])])
        #expect(sections[0].lines() == ["m=audio 0 UDP/TLS/RTP/SAVPF 111", "c=IN IP4 0.0.0.0", "a=mid:0", "a=rtpmap:111 opus/48000/2"])
        #expect(sections[2].lines() == ["m=application 0 UDP/DTLS/SCTP webrtc-datachannel", "c=IN IP4 0.0.0.0", "a=mid:2"])
        let video = answer.video
        #expect(video.mediaIndex == 1 && video.mid == "1" && video.direction == .sendonly)
        #expect(video.extensions.map(\.id) == [2, 13, 3])
        #expect(video.remote.candidates.map(\.port) == [55183, 60367, 43172, 40514])
        #expect(video.remoteSourceGroups == [.flowIdentification(media: 1_759_239_663, retransmission: 2_074_646_972)])
    }

    /// aiortc numbers VP8 97 and RTX 98, offers nack, PLI and REMB, and only abs-send-time of ours.
    @Test func answeringAiortcTakesItsPayloadTypesAndTheCommonSubset() throws {
        let answer = try Setup.publisher.makeAnswer(to: Setup.parse(.aiortcRecvonlyOffer))
        let video = answer.video
        #expect(video.payloadType == 97 && video.rtxPayloadType == 98)
        #expect(video.feedback == [.nack, .pli, .remb])
        #expect(video.extensions == [HeaderExtensionMapping(id: 2, uri: Setup.absoluteSendTime)])
        #expect(!video.rtcpReducedSize)
        #expect(video.remote.candidates.count == 2 && video.remote.endOfCandidates)
        let lines = answer.sessionDescription.lines()
        #expect(lines.contains("m=video 9 UDP/TLS/RTP/SAVPF 97 98"))
        #expect(lines.contains("a=fmtp:98 apt=97"))
        #expect(!lines.contains("a=rtcp-rsize"))
        #expect(!lines.contains { $0.hasPrefix("a=rtcp-fb:97 ccm") || $0.hasPrefix("a=rtcp-fb:97 transport-cc") })
    }

    /// Janus (ICE lite, fingerprint at session level) sends; a receiving endpoint answers recvonly
    /// and writes no SSRC of its own.
    @Test func answeringJanusAsAReceiver() throws {
        var receiver = Setup.publisher
        receiver.sender.direction = .recvonly
        let answer = try receiver.makeAnswer(to: Setup.parse(.janusStreamingOffer))
        let video = answer.video
        #expect(video.mid == "v" && video.direction == .recvonly)
        #expect(video.remote.iceLite && video.remote.fingerprints.count == 1)
        #expect(video.feedback == [.nack, .pli, .fir, .transportCC, .remb])
        #expect(video.extensions == [HeaderExtensionMapping(id: 2, uri: Setup.absoluteSendTime)])
        #expect(video.remoteSources.map(\.ssrc) == [547_949_095, 2_812_071_784])
        let section = answer.sessionDescription.media[0]
        #expect(section.direction == .recvonly && section.sources.isEmpty && section.streamIDs.isEmpty)
        #expect(answer.sessionDescription.groups == [.bundle(["v"])])
    }

    @Test func theSetupRoleIsFlipped() throws {
        var offer = try Setup.parse(.chromiumRecvonlyOffer)
        offer.media[0].setup = .active
        #expect(try Setup.server.makeAnswer(to: offer).video.localDTLSRole == .server)
        #expect(try Setup.server.makeAnswer(to: offer).sessionDescription.media[0].setup == .passive)
        offer.media[0].setup = .passive
        #expect(try Setup.server.makeAnswer(to: offer).video.localDTLSRole == .client)
        var passiveServer = Setup.server
        passiveServer.transport.preferredAnswerRole = .server
        #expect(try passiveServer.makeAnswer(to: Setup.parse(.chromiumRecvonlyOffer)).sessionDescription.media[0].setup == .passive)
    }

    @Test func wildcardFeedbackCounts() throws {
        var offer = try Setup.parse(.aiortcRecvonlyOffer)
        offer.media[0].wildcardFeedback = [.fir]
        #expect(try Setup.publisher.makeAnswer(to: offer).video.feedback == [.nack, .pli, .fir, .remb])
    }

    @Test func offersThatCannotBeAnsweredSayWhy() throws {
        let chromium = try Setup.parse(.chromiumRecvonlyOffer)
        func expectError(_ expected: SDPNegotiationError, _ message: String, _ change: (inout SessionDescription) -> Void) {
            var offer = chromium
            change(&offer)
            #expect(throws: expected) { try Setup.server.makeAnswer(to: offer) }
            #expect(expected.description == message)
        }
        expectError(.noMatchingCodec("VP8", in: .offer), "the offer has no VP8") {
            $0.media[0].payloadFormats.removeAll { $0.rtpmap?.encodingName == "VP8" }
        }
        expectError(.noVideoSection(.offer), "the offer has no video section") { $0.media[0].port = 0 }
        expectError(.noVideoSection(.offer), "the offer has no video section") { $0.media[0].kind = .audio }
        expectError(
            .insecureTransport(.rtpAVPF, in: .offer),
            "the offer's video uses RTP/AVPF; WebRTC needs DTLS-SRTP such as UDP/TLS/RTP/SAVPF"
        ) { $0.media[0].transportProtocol = .rtpAVPF }
        expectError(.missingFingerprint(.offer), "the offer has no a=fingerprint") { $0.media[0].fingerprints = [] }
        expectError(.missingICECredentials(.offer), "the offer has no a=ice-ufrag and a=ice-pwd") { $0.media[0].icePassword = nil }
        expectError(.invalidSetupRole(.holdconn, in: .offer), "a=setup:holdconn is not allowed in the offer") {
            $0.media[0].setup = .holdconn
        }
        expectError(.rtcpMuxRequired(.offer), "the offer's video has no a=rtcp-mux") { $0.media[0].rtcpMux = false }
        expectError(
            .directionConflict(offered: .sendonly, wanted: .sendonly),
            "the offer's video is sendonly and we want sendonly: no media would flow"
        ) { $0.media[0].direction = .sendonly }
    }

    /// A sendonly aiortc offer (it wants to publish) meets our sendonly sender.
    @Test func twoSendersCannotAgree() throws {
        #expect(throws: SDPNegotiationError.directionConflict(offered: .sendonly, wanted: .sendonly)) {
            try Setup.publisher.makeAnswer(to: Setup.parse(.aiortcOffer))
        }
    }
}

/// Real answers to our offer, and answers that break the rules.
@Suite("Checking an answer against our offer")
struct AnswerValidationTests {
    typealias Setup = NegotiationSetup

    @Test func chromiumsAnswer() throws {
        let video = try Setup.publisher.acceptAnswer(Setup.parse(.chromiumAnswerToCamrtpOffer), to: Setup.publisher.makeOffer())
        #expect(video.payloadType == 96 && video.rtxPayloadType == 97)
        #expect(video.feedback == [.nack, .pli, .fir, .transportCC, .remb])
        #expect(video.extensions == [
            HeaderExtensionMapping(id: 2, uri: Setup.absoluteSendTime), HeaderExtensionMapping(id: 13, uri: Setup.videoOrientation),
            HeaderExtensionMapping(id: 3, uri: transportWideCC),
        ])
        #expect(video.direction == .sendonly && video.rtcpReducedSize)
        #expect(video.localDTLSRole == .server && video.remote.setup == .active)
        #expect(video.remote.iceCredentials.usernameFragment == "HCDx")
        #expect(video.remote.candidates.isEmpty && !video.remote.endOfCandidates)
    }

    @Test func aiortcsAnswer() throws {
        let video = try Setup.publisher.acceptAnswer(Setup.parse(.aiortcAnswerToCamrtpOffer), to: Setup.publisher.makeOffer())
        #expect(video.payloadType == 96 && video.rtxPayloadType == 97)
        #expect(video.feedback == [.nack, .pli, .remb])
        #expect(video.extensions == [HeaderExtensionMapping(id: 2, uri: Setup.absoluteSendTime)])
        #expect(video.direction == .sendonly && !video.rtcpReducedSize && video.localDTLSRole == .server)
        #expect(video.remote.candidates.map(\.address) == ["192.0.2.2", "fd00::2"] && video.remote.endOfCandidates)
        #expect(video.remoteSources.count == 2)
    }

    /// FEC only when we offer it, and only when the answer keeps both RED and ULPFEC as offered.
    @Test func fecNeedsBothSidesAndBothFormats() throws {
        var withoutFEC = Setup.server
        withoutFEC.sender.fec = nil
        let plain = try withoutFEC.makeAnswer(to: Setup.parse(.chromiumRecvonlyOffer))
        #expect(plain.video.fec == nil && !plain.sessionDescription.lines().contains { $0.contains("red") || $0.contains("ulpfec") })

        let offer = Setup.publisher.makeOffer()
        var answer = try Setup.parse(.chromiumAnswerToCamrtpOffer)
        answer.media[0].payloadFormats += [.red(payloadType: 98), .ulpfec(payloadType: 99)]
        #expect(try Setup.publisher.acceptAnswer(answer, to: offer).fec == FECFormats(red: 98, ulpfec: 99))
        answer.media[0].payloadFormats.removeLast()
        #expect(try Setup.publisher.acceptAnswer(answer, to: offer).fec == nil, "RED without ULPFEC is no FEC")
        answer.media[0].payloadFormats += [PayloadFormat(payloadType: 99, rtpmap: .ulpfec), .red(payloadType: 97)]
        answer.media[0].payloadFormats.removeAll { $0.payloadType == 98 }
        #expect(try Setup.publisher.acceptAnswer(answer, to: offer).fec == nil, "RED on a payload type offered for RTX")
    }

    @Test func anAnswerWithoutRTXNegotiatesNone() throws {
        var answer = try Setup.parse(.chromiumAnswerToCamrtpOffer)
        answer.media[0].payloadFormats.removeAll(where: \.isRetransmission)
        #expect(try Setup.publisher.acceptAnswer(answer, to: Setup.publisher.makeOffer()).rtxPayloadType == nil)
    }

    @Test func answersThatBreakTheRulesSayWhy() throws {
        let chromium = try Setup.parse(.chromiumAnswerToCamrtpOffer)
        let offer = Setup.publisher.makeOffer()
        func expectError(_ expected: SDPNegotiationError, _ change: (inout SessionDescription) -> Void) {
            var answer = chromium
            change(&answer)
            #expect(throws: expected) { try Setup.publisher.acceptAnswer(answer, to: offer) }
        }
        expectError(.mediaSectionCountMismatch(offered: 1, answered: 2)) { $0.media.append($0.media[0]) }
        expectError(.mediaSectionMismatch(index: 0, offeredMid: "0", answeredMid: "1")) { $0.media[0].mid = "1" }
        expectError(.videoRejected) { $0.media[0].port = 0 }
        expectError(.protocolMismatch(offered: .udpTLSRTPSAVPF, answered: .rtpSAVPF)) { $0.media[0].transportProtocol = .rtpSAVPF }
        expectError(.invalidSetupRole(.actpass, in: .answer)) { $0.media[0].setup = .actpass }
        expectError(.missingSetupRole(.answer)) { $0.media[0].setup = nil }
        expectError(.missingFingerprint(.answer)) { $0.media[0].fingerprints = [] }
        expectError(.rtcpMuxRequired(.answer)) { $0.media[0].rtcpMux = false }
        expectError(.unofferedPayloadType(100)) { $0.media[0].payloadFormats.append(.vp8(payloadType: 100)) }
        expectError(.noMatchingCodec("VP8", in: .answer)) { $0.media[0].payloadFormats.removeFirst() }
        expectError(.unofferedExtension(id: 5, uri: Setup.absoluteSendTime)) { $0.media[0].extensions[0].id = 5 }
        expectError(.invalidAnswerDirection(offered: .sendonly, answered: .sendrecv)) { $0.media[0].direction = .sendrecv }
        expectError(.invalidAnswerDirection(offered: .sendonly, answered: .inactive)) { $0.media[0].direction = .inactive }
        #expect(SDPNegotiationError.videoRejected.description == "the answer rejects the video section (port 0)")
    }
}
