import RTP
import RTPSender
import RTPSession
import SDP
import Testing
import Transport
@testable import WebRTC

/// A simulcast offer and what an SFU's answer makes of the RTP sender: one `EncodingStreams` per
/// encoding the answer kept, lowest first, each with random SSRCs and its RID.
@Suite("WebRTC: simulcast negotiation")
struct SimulcastSenderNegotiationTests {
    static let encodings = [
        SimulcastEncoding(rid: "q", encodingIndex: 0, maxWidth: 320, maxHeight: 180),
        SimulcastEncoding(rid: "h", encodingIndex: 1, maxWidth: 640, maxHeight: 360),
        SimulcastEncoding(rid: "f", encodingIndex: 2),
    ]
    static let key = SRTPMasterKey(randomFor: .aeadAES128GCM)

    /// The SFU's answer to `offer`, written as Janus VideoRoom and mediasoup write theirs: the
    /// offer's formats, feedback and extension IDs, `a=rid:<rid> recv` and `a=simulcast:recv`.
    static func sfuAnswer(to offer: SessionDescription, simulcast: String?, dropping droppedURI: String? = nil) throws -> SessionDescription {
        let section = offer.media[0]
        let extensions = section.extensions.filter { $0.uri != droppedURI }.map { "a=extmap:\($0.id) \($0.uri)" }
        let kept = simulcast.map { line in
            line.dropFirst("a=simulcast:recv ".count).split(whereSeparator: { ";,".contains($0) }).map { "a=rid:\($0.drop { $0 == "~" }) recv" } + [line]
        } ?? []
        let lines = [
            "v=0", "o=- 99 1 IN IP4 192.0.2.10", "s=-", "t=0 0", "a=group:BUNDLE 0", "a=ice-lite",
            "m=video 9 UDP/TLS/RTP/SAVPF 96 97", "c=IN IP4 192.0.2.10", "a=mid:0", "a=recvonly", "a=rtcp-mux", "a=rtcp-rsize",
            "a=ice-ufrag:J4nU", "a=ice-pwd:s3cr3tS3cr3tS3cr3tS3cr3t",
            "a=fingerprint:sha-256 " + (0..<32).map { _ in "AB" }.joined(separator: ":"), "a=setup:active",
            "a=rtpmap:96 VP8/90000", "a=rtcp-fb:96 nack", "a=rtcp-fb:96 nack pli", "a=rtcp-fb:96 transport-cc",
            "a=rtpmap:97 rtx/90000", "a=fmtp:97 apt=96",
        ] + extensions + kept + ["a=candidate:1 1 udp 2015363327 192.0.2.10 20000 typ host"]
        return try SessionDescription(parsing: lines.map { $0 + "\r\n" }.joined())
    }

    static func transport() -> LocalTransportParameters {
        LocalTransportParameters(
            iceCredentials: ICEParameters(usernameFragment: "cAmR", password: "0123456789abcdefABCDEF+/"),
            fingerprints: [Fingerprint(hashFunction: .sha256, digest: Array(0..<32))])
    }

    /// Offers the encodings, accepts the SFU's answer, and builds the sender's session.
    static func negotiate(
        simulcast: String?, configuration: WebRTCSenderConfiguration = WebRTCSenderConfiguration(simulcast: encodings),
        dropping droppedURI: String? = nil
    ) throws -> (NegotiatedVideo, SendSessionConfiguration) {
        let negotiation = SenderNegotiation(configuration: configuration)
        let negotiator = VideoNegotiator(
            sender: negotiation.localVideoSender, transport: transport(), origin: Origin(sessionID: 1, address: .ipv4("127.0.0.1")))
        let offer = negotiator.makeOffer()
        let video = SenderNegotiation.sendable(
            try negotiator.acceptAnswer(sfuAnswer(to: offer, simulcast: simulcast, dropping: droppedURI), to: offer))
        let sender = negotiation.senderConfiguration(for: video, outboundKey: key, inboundKey: key, transport: SenderNegotiationTests.NoTransport())
        try sender.validate()
        return (video, sender.session)
    }

    /// Without the RID extension the SFU could not tell the streams apart: the highest
    /// encoding it kept goes alone, without RID, on the SSRC the first stream takes.
    @Test func anAnswerThatKeepsSimulcastButNotTheRIDExtensionGetsTheHighestEncodingAlone() throws {
        let (video, session) = try Self.negotiate(simulcast: "a=simulcast:recv f;h;q", dropping: RTPHeaderExtensionURI.rtpStreamID)
        #expect(video.sentEncodings == [SentEncoding(encodingIndex: 2)])
        #expect(session.encodings.count == 1 && session.encodings[0].encodingIndex == 2 && session.encodings[0].rid == nil)
        #expect(session.extensions.rtpStreamID == nil)
    }

    @Test func theOfferCarriesTheRIDExtensionsAndTheEncodings() {
        let local = SenderNegotiation(configuration: WebRTCSenderConfiguration(simulcast: Self.encodings)).localVideoSender
        #expect(local.simulcast == Self.encodings)
        #expect(local.extensions.suffix(3) == [
            HeaderExtensionMapping(id: 4, uri: RTPHeaderExtensionURI.mid), HeaderExtensionMapping(id: 10, uri: RTPHeaderExtensionURI.rtpStreamID),
            HeaderExtensionMapping(id: 11, uri: RTPHeaderExtensionURI.repairedRTPStreamID),
        ])
        let withoutRTX = SenderNegotiation(
            configuration: WebRTCSenderConfiguration(tuning: SenderTuning(retransmission: .resend), simulcast: Self.encodings))
        #expect(!withoutRTX.localVideoSender.extensions.contains { $0.uri == RTPHeaderExtensionURI.repairedRTPStreamID })
        #expect(!SenderNegotiation(configuration: WebRTCSenderConfiguration()).localVideoSender.extensions.contains {
            $0.uri == RTPHeaderExtensionURI.mid
        })
    }

    @Test func anAnswerKeepingAllThreeGivesThreeEncodingsLowestFirst() throws {
        let (video, session) = try Self.negotiate(simulcast: "a=simulcast:recv q;h;f")
        #expect(video.sentEncodings.map(\.encodingIndex) == [0, 1, 2])
        #expect(session.encodings.map(\.encodingIndex) == [0, 1, 2])
        #expect(session.encodings.map(\.rid) == ["q", "h", "f"].map(RTPStreamID.init))
        let ssrcs = session.encodings.flatMap { [$0.media.ssrc, $0.rtxSSRC] }.compactMap { $0 }
        #expect(ssrcs.count == 6 && Set(ssrcs).count == 6, "a media and an RTX SSRC each, all distinct")
        #expect(session.mid == MediaIdentification("0"))
        #expect(session.extensions == HeaderExtensionIDs(
            absoluteSendTime: 2, transportWideSequenceNumber: 3, absoluteCaptureTime: 9, mid: 4, rtpStreamID: 10, repairedRTPStreamID: 11))
    }

    @Test func aDroppedAndAPausedRIDAreNotSent() throws {
        let (video, session) = try Self.negotiate(simulcast: "a=simulcast:recv ~q;f")
        #expect(video.sentEncodings == [SentEncoding(encodingIndex: 2, rid: "f")])
        #expect(session.encodings.map(\.encodingIndex) == [2] && session.encodings[0].rid == RTPStreamID("f"))
    }

    @Test func withoutSimulcastInTheAnswerTheHighestEncodingGoesAloneWithoutRID() throws {
        let (video, session) = try Self.negotiate(simulcast: nil)
        #expect(video.sentEncodings == [SentEncoding(encodingIndex: 2)])
        #expect(session.encodings.count == 1 && session.encodings[0].encodingIndex == 2 && session.encodings[0].rid == nil)
    }

    @Test func anAnswerNamingAnUnofferedRIDIsRefusedByName() throws {
        #expect(throws: SDPNegotiationError.unofferedRID("m")) { try Self.negotiate(simulcast: "a=simulcast:recv q;m") }
        #expect(
            WebRTCError.negotiation(.unofferedRID("m")).description
                == "the peer's SDP does not fit: the answer names rid \"m\", which the offer did not: simulcast streams are the offer's a=rid lines")
    }

    @Test(arguments: [
        ([SimulcastEncoding(rid: "seventeen-chars-x", encodingIndex: 0)], "simulcast cannot be offered: rid \"seventeen-chars-x\" is not 1 to 16 letters, digits, - or _"),
        ([SimulcastEncoding(rid: "a.b", encodingIndex: 0)], "simulcast cannot be offered: rid \"a.b\" is not 1 to 16 letters, digits, - or _"),
        ([SimulcastEncoding(rid: "q", encodingIndex: 0), SimulcastEncoding(rid: "q", encodingIndex: 1)], "simulcast cannot be offered: rid \"q\" is given twice"),
        ([SimulcastEncoding(rid: "q", encodingIndex: 1), SimulcastEncoding(rid: "h", encodingIndex: 1)], "simulcast cannot be offered: encoding index 1 is given two rids"),
        ([SimulcastEncoding(rid: "q", encodingIndex: -1)], "simulcast cannot be offered: encoding index -1 is negative"),
    ])
    func encodingsThatCannotBeOfferedSayWhy(encodings: [SimulcastEncoding], message: String) {
        #expect(throws: Never.self) { try WebRTCSenderConfiguration(simulcast: Self.encodings).validateSimulcast() }
        do {
            try WebRTCSenderConfiguration(simulcast: encodings).validateSimulcast()
            Issue.record("accepted")
        } catch {
            #expect(error.description == message)
        }
    }
}
