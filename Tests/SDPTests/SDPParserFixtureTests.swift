import SDP
import Testing

/// The parser against real descriptions from Chromium, aiortc and Janus.
@Suite("SDP parser on real descriptions")
struct SDPParserFixtureTests {
    /// Writing a parsed description gives the same lines, only reordered: nothing is lost.
    @Test(arguments: Fixture.allCases)
    func writingAParsedDescriptionKeepsEveryLine(_ fixture: Fixture) throws {
        let text = try fixture.text()
        let parsed = try SessionDescription(parsing: text)
        let written = parsed.serialized()
        #expect(written.hasSuffix("\r\n"))
        #expect(written.split(separator: "\r\n").sorted() == text.split(separator: "\r\n").sorted())
        #expect(try SessionDescription(parsing: written) == parsed)
    }

    /// LF line endings, trailing blanks and blank lines read the same as the CRLF original.
    @Test(arguments: Fixture.allCases)
    func lfEndingsAndTrailingBlanksAreTolerated(_ fixture: Fixture) throws {
        let text = try fixture.text()
        let untidy = text.split(separator: "\r\n").map { $0 + " \t" }.joined(separator: "\n\n")
        #expect(try SessionDescription(parsing: untidy) == SessionDescription(parsing: text))
    }

    @Test func chromiumRecvonlyOffer() throws {
        let sdp = try SessionDescription(parsing: Fixture.chromiumRecvonlyOffer.text())
        #expect(sdp.origin == Origin(sessionID: 7_813_739_413_019_177_291, sessionVersion: 2, address: .ipv4("127.0.0.1")))
        #expect(sdp.groups == [.bundle(["0"])])
        #expect(sdp.otherAttributes == [Attribute(name: "extmap-allow-mixed"), Attribute(name: "msid-semantic", value: " WMS")])
        try #require(sdp.media.count == 1)
        let video = sdp.media[0]
        #expect(video.kind == .video && video.port == 9 && video.transportProtocol == .udpTLSRTPSAVPF)
        #expect(video.payloadFormats.count == 34)
        #expect(video.connection == .unspecifiedIPv4)
        #expect(video.rtcp == RTCPAttribute(port: 9, address: .unspecifiedIPv4))
        #expect(sdp.iceCredentials(for: video) == ICEParameters(usernameFragment: "0WuK", password: "lZtlIgvzC9X0cuUQhMBWQ/Xd"))
        #expect(video.iceOptions == ["trickle"])
        #expect(video.fingerprints.count == 1)
        #expect(video.fingerprints.first?.hashFunction == .sha256)
        #expect(video.fingerprints.first?.digest.prefix(3) == [0x63, 0x65, 0xB1])
        #expect(video.setup == .actpass && video.mid == "0" && video.direction == .recvonly)
        #expect(video.rtcpMux && video.rtcpReducedSize)
        #expect(video.extensions.count == 11)
        #expect(video.extensions[2] == HeaderExtensionMapping(id: 3, uri: "urn:3gpp:video-orientation"))
        #expect(video.extensions[3] == HeaderExtensionMapping(id: 4, uri: transportWideCC))
        #expect(video.otherAttributes == [Attribute(name: "rtcp-xr", value: "rcvr-rtt=all")])

        let vp8 = try #require(video.firstPayloadFormat(matching: .vp8))
        #expect(vp8.payloadType == 96)
        #expect(vp8.feedback == [.remb, .transportCC, .fir, .nack, .pli])
        #expect(video.retransmissionFormat(for: 96)?.payloadType == 97)
        #expect(video.payloadFormat(98)?.parameters == [FormatParameter(name: "profile-id", value: "0")])
        #expect(video.payloadFormat(49)?.rtpmap == RTPMap(encodingName: "flexfec-03", clockRate: 90_000))
        #expect(video.payloadFormat(120)?.feedback == [])
    }

    @Test func chromiumSendrecvOfferWithAudioVideoDataAndCandidates() throws {
        let sdp = try SessionDescription(parsing: Fixture.chromiumSendrecvOffer.text())
        #expect(sdp.media.map(\.kind) == [.audio, .video, .application])
        #expect(sdp.groups == [.bundle(["0", "1", "2"])])
        let audio = sdp.media[0]
        #expect(audio.payloadFormat(111)?.rtpmap == RTPMap(encodingName: "opus", clockRate: 48_000, encodingParameters: "2"))
        #expect(audio.payloadFormat(63)?.parameters == [FormatParameter(name: "111/111")])
        #expect(audio.payloadFormat(0)?.rtpmap == RTPMap(encodingName: "PCMU", clockRate: 8_000))
        #expect(audio.candidates.count == 4)
        #expect(audio.candidates.first == Candidate(
            foundation: "1543246798", priority: 2_122_194_687, address: "127.0.0.1", port: 36786, type: .host,
            extensions: [
                CandidateExtension(name: "generation", value: "0"), CandidateExtension(name: "network-id", value: "3"),
                CandidateExtension(name: "network-cost", value: "50"),
            ]))
        #expect(audio.candidates.first?.generation == 0)
        #expect(audio.candidates[2].address == "::1")
        #expect(audio.streamIDs == [MediaStreamID(streamID: "-", trackID: "0c32e6d3-0ea8-4f6a-9c35-e2651d673a98")])

        let video = sdp.media[1]
        #expect(video.mid == "1" && video.direction == .sendrecv && video.port == 55183)
        #expect(video.extensions.first { $0.uri == transportWideCC }?.id == 3)
        #expect(video.sourceGroups == [.flowIdentification(media: 1_759_239_663, retransmission: 2_074_646_972)])
        #expect(video.sources.map(\.ssrc) == [1_759_239_663, 2_074_646_972])
        #expect(video.sources.first?.cname == "LOOtLa38gUwI3Mi3")
        #expect(video.sources.first?.attributes.last == SourceAttribute(name: "msid", value: "- 90a39ebf-4452-4d53-ac4f-f14936ea0e32"))

        let data = sdp.media[2]
        #expect(data.transportProtocol == .udpDTLSSCTP && data.payloadFormats.isEmpty)
        #expect(data.otherFormats == ["webrtc-datachannel"])
        #expect(data.otherAttributes == [Attribute(name: "sctp-port", value: "5000"), Attribute(name: "max-message-size", value: "262144")])
    }

    @Test func aiortcOfferAndAnswer() throws {
        let offer = try SessionDescription(parsing: Fixture.aiortcOffer.text())
        let video = try #require(offer.media.first)
        #expect(video.direction == .sendonly && video.connection == .ipv4("192.0.2.2"))
        #expect(video.firstPayloadFormat(matching: .vp8)?.payloadType == 97)
        #expect(video.retransmissionFormat(for: 97)?.payloadType == 98)
        #expect(video.feedback(for: 97) == [.nack, .pli, .remb])
        #expect(video.candidates.map(\.port) == [45019, 43415])
        #expect(video.candidates.allSatisfy { $0.extensions.isEmpty && $0.isUDP })
        #expect(video.endOfCandidates)
        #expect(offer.otherAttributes == [Attribute(name: "msid-semantic", value: "WMS *")])

        let answer = try SessionDescription(parsing: Fixture.aiortcAnswer.text())
        #expect(answer.media.first?.setup == .active && answer.media.first?.direction == .recvonly)
    }

    /// Janus puts the fingerprint and ICE options at session level and runs ICE lite.
    @Test func janusStreamingOfferKeepsSessionLevelTransport() throws {
        let sdp = try SessionDescription(parsing: Fixture.janusStreamingOffer.text())
        #expect(sdp.sessionName == "Mountpoint 1")
        #expect(sdp.iceLite)
        #expect(sdp.iceOptions == ["trickle"])
        #expect(sdp.fingerprints.count == 1 && sdp.media.first?.fingerprints == [])
        let video = try #require(sdp.media.first)
        #expect(sdp.fingerprints(for: video) == sdp.fingerprints)
        #expect(video.mid == "v" && video.direction == .sendonly)
        #expect(video.feedback(for: 96) == [.fir, .nack, .pli, .remb, .transportCC])
        #expect(video.streamIDs == [MediaStreamID(streamID: "janus", trackID: "janusv")])
        #expect(video.candidates == [Candidate(
            foundation: "1", priority: 2_015_363_327, address: "192.0.2.2", port: 56623, type: .host)])
    }
}

let transportWideCC = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
