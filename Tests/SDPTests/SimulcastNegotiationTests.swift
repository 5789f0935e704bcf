import SDP
import Testing

/// Simulcast in SDP: `a=rid` (RFC 8851) and `a=simulcast` (RFC 8853) read and written, our offer
/// of three encodings, and what an SFU's answer leaves of them.
@Suite("Simulcast: a=rid, a=simulcast and their negotiation")
struct SimulcastNegotiationTests {
    typealias Setup = NegotiationSetup

    static let mid = "urn:ietf:params:rtp-hdrext:sdes:mid"
    static let rid = "urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id"
    static let repairedRID = "urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id"

    /// Lowest first in the encoder ("q" is encoding 0), listed in the offer as given.
    static let encodings = [
        SimulcastEncoding(rid: "q", encodingIndex: 0, maxWidth: 320, maxHeight: 180),
        SimulcastEncoding(rid: "h", encodingIndex: 1, maxWidth: 640, maxHeight: 360),
        SimulcastEncoding(rid: "f", encodingIndex: 2),
    ]

    static var publisher: VideoNegotiator {
        var negotiator = Setup.publisher
        negotiator.sender.simulcast = encodings
        negotiator.sender.extensions += [
            HeaderExtensionMapping(id: 4, uri: mid), HeaderExtensionMapping(id: 10, uri: rid),
            HeaderExtensionMapping(id: 11, uri: repairedRID),
        ]
        return negotiator
    }

    /// An SFU's answer to `publisher`'s offer in the form Janus VideoRoom and mediasoup write it:
    /// the RID lines turned to `recv`, `a=simulcast:recv` in the offer's order, the RID
    /// extensions kept under the offer's IDs, no `a=ssrc`.
    static func sfuAnswer(simulcast: String? = "a=simulcast:recv q;h;f", rids: [String] = ["q", "h", "f"]) throws -> SessionDescription {
        let lines = [
            "v=0",
            "o=- 7654321 1 IN IP4 192.0.2.10",
            "s=VideoRoom 1234",
            "t=0 0",
            "a=group:BUNDLE 0",
            "a=ice-lite",
            "a=msid-semantic: WMS janus",
            "m=video 9 UDP/TLS/RTP/SAVPF 96 97",
            "c=IN IP4 192.0.2.10",
            "a=recvonly",
            "a=mid:0",
            "a=rtcp-mux",
            "a=ice-ufrag:J4nU",
            "a=ice-pwd:s3cr3tS3cr3tS3cr3tS3cr3t",
            "a=ice-options:trickle",
            "a=fingerprint:sha-256 " + (0..<32).map { _ in "AB" }.joined(separator: ":"),
            "a=setup:active",
            "a=rtpmap:96 VP8/90000",
            "a=rtcp-fb:96 ccm fir",
            "a=rtcp-fb:96 nack",
            "a=rtcp-fb:96 nack pli",
            "a=rtcp-fb:96 goog-remb",
            "a=rtcp-fb:96 transport-cc",
            "a=extmap:4 \(mid)",
            "a=extmap:10 \(rid)",
            "a=extmap:11 \(repairedRID)",
            "a=extmap:3 \(transportWideCC)",
            "a=rtpmap:97 rtx/90000",
            "a=fmtp:97 apt=96",
        ] + rids.map { "a=rid:\($0) recv" } + (simulcast.map { [$0] } ?? []) + [
            "a=candidate:1 1 udp 2015363327 192.0.2.10 20000 typ host",
            "a=end-of-candidates",
        ]
        return try SessionDescription(parsing: lines.map { $0 + "\r\n" }.joined())
    }

    @Test func ridAndSimulcastReadAndWriteBack() throws {
        let text = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96 97\r\n"
            + "a=rid:hi send pt=96,97;max-width=1280;max-height=720;max-fps=30\r\na=rid:lo_1 send\r\n"
            + "a=simulcast:send hi,~lo_1;x recv ~r\r\n"
        let section = try SessionDescription(parsing: text).media[0]
        #expect(section.rids == [
            RIDAttribute(
                id: "hi", direction: .send, payloadTypes: [96, 97],
                restrictions: [
                    FormatParameter(name: "max-width", value: "1280"), FormatParameter(name: "max-height", value: "720"),
                    FormatParameter(name: "max-fps", value: "30"),
                ]),
            RIDAttribute(id: "lo_1", direction: .send),
        ])
        #expect(section.rids[0].maxWidth == 1280 && section.rids[0].maxHeight == 720 && section.rids[1].maxWidth == nil)
        #expect(section.simulcast == SimulcastAttribute(
            send: [[SimulcastRID("hi"), SimulcastRID("lo_1", isPaused: true)], [SimulcastRID("x")]],
            receive: [[SimulcastRID("r", isPaused: true)]]))
        #expect(section.lines().suffix(3) == [
            "a=rid:hi send pt=96,97;max-width=1280;max-height=720;max-fps=30", "a=rid:lo_1 send", "a=simulcast:send hi,~lo_1;x recv ~r",
        ])
    }

    @Test(arguments: [
        ("a=rid:q", "a=rid: expected send or recv after the rid-id, found \"\""),
        ("a=rid:q both", "a=rid: expected send or recv after the rid-id, found \"both\""),
        ("a=rid:q.1 send", "a=rid: expected a rid-id of 1…255 letters, digits, - or _, found \"q.1\""),
        ("a=rid:q send pt=96,x", "a=rid: expected a payload type (0…127), found \"x\""),
        ("a=rid:q send pt=300", "a=rid: expected a payload type (0…127), found \"300\""),
        ("a=rid:q send max width=3", "a=rid: expected <name>[=<value>] restrictions, found \"max width=3\""),
        ("a=rid:q send max-width=", "a=rid: expected <name>[=<value>] restrictions, found \"max-width=\""),
        ("a=simulcast:send", "a=simulcast: expected \"send|recv <rid>[,<rid>][;<rid>]\", found \"send\""),
        ("a=simulcast:send q;;f", "a=simulcast: expected [~]<rid-id>, found \"\""),
        ("a=simulcast:send ~", "a=simulcast: expected [~]<rid-id>, found \"~\""),
        ("a=simulcast:send q send h", "a=simulcast: expected send and recv at most once each, found \"send\""),
        ("a=simulcast:sendrecv q", "a=simulcast: expected send and recv at most once each, found \"sendrecv\""),
    ])
    func malformedLinesSayWhy(line: String, reason: String) {
        let text = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\n\(line)\r\n"
        do {
            _ = try SessionDescription(parsing: text)
            Issue.record("\(line) was accepted")
        } catch {
            #expect(error.description == "SDP line 6: \(reason)")
        }
    }

    @Test func aRIDOfMoreThan255CharactersIsRefused() {
        let text = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\n"
        #expect(throws: Never.self) { try SessionDescription(parsing: text + "a=rid:\(String(repeating: "r", count: 255)) send\r\n") }
        #expect(throws: SDPParseError.self) { try SessionDescription(parsing: text + "a=rid:\(String(repeating: "r", count: 256)) send\r\n") }
    }

    /// Chrome's offer for `sendEncodings` with RIDs: one `a=rid:<rid> send` per encoding, the
    /// `a=simulcast:send` list, and no `a=ssrc`: the streams are known by their RIDs.
    @Test func ourOfferListsTheRIDsInTheGivenOrderWithoutSSRCs() {
        var negotiator = Self.publisher
        negotiator.sender.simulcast = Self.encodings.reversed()
        let lines = negotiator.makeOffer().lines()
        #expect(lines.filter { $0.hasPrefix("a=rid:") || $0.hasPrefix("a=simulcast:") } == [
            "a=rid:f send", "a=rid:h send max-width=640;max-height=360", "a=rid:q send max-width=320;max-height=180",
            "a=simulcast:send f;h;q",
        ])
        #expect(lines.contains("a=extmap:10 \(Self.rid)") && lines.contains("a=extmap:11 \(Self.repairedRID)"))
        #expect(lines.contains("a=extmap:4 \(Self.mid)") && lines.contains("a=msid:camrtp video0"))
        #expect(!lines.contains { $0.hasPrefix("a=ssrc") })
        #expect(!Setup.publisher.makeOffer().lines().contains { $0.hasPrefix("a=rid") || $0.hasPrefix("a=simulcast") })
    }

    @Test func anSFUsAnswerKeepingAllThreeSendsAllThreeLowestFirst() throws {
        let video = try Self.publisher.acceptAnswer(Self.sfuAnswer(), to: Self.publisher.makeOffer())
        #expect(video.sentEncodings == [
            SentEncoding(encodingIndex: 0, rid: "q"), SentEncoding(encodingIndex: 1, rid: "h"), SentEncoding(encodingIndex: 2, rid: "f"),
        ])
        #expect(video.extensions.contains(HeaderExtensionMapping(id: 10, uri: Self.rid)))
        #expect(video.extensions.contains(HeaderExtensionMapping(id: 11, uri: Self.repairedRID)))
        #expect(video.extensions.contains(HeaderExtensionMapping(id: 4, uri: Self.mid)))
    }

    /// Janus VideoRoom's own answer to this offer: all three kept, with the MID, RID and
    /// repaired-RID extensions, RTX, and no FEC.
    @Test func janusVideoRoomsAnswerKeepsAllThree() throws {
        let offer = Self.publisher.makeOffer()
        let video = try Self.publisher.acceptAnswer(Setup.parse(.janusVideoRoomAnswerToCamrtpSimulcastOffer), to: offer)
        #expect(video.sentEncodings == [
            SentEncoding(encodingIndex: 0, rid: "q"), SentEncoding(encodingIndex: 1, rid: "h"), SentEncoding(encodingIndex: 2, rid: "f"),
        ])
        #expect(video.extensions.filter { [Self.mid, Self.rid, Self.repairedRID].contains($0.uri) }.map(\.id) == [4, 10, 11])
        #expect(video.rtxPayloadType == 97 && video.fec == nil && video.localDTLSRole == .server)
        #expect(video.feedback == [.nack, .pli, .fir, .transportCC, .remb])
    }

    @Test func fewerRIDsOrPausedOnesAreNotSent() throws {
        let offer = Self.publisher.makeOffer()
        let two = try Self.publisher.acceptAnswer(Self.sfuAnswer(simulcast: "a=simulcast:recv f;q", rids: ["f", "q"]), to: offer)
        #expect(two.sentEncodings == [SentEncoding(encodingIndex: 0, rid: "q"), SentEncoding(encodingIndex: 2, rid: "f")])
        let paused = try Self.publisher.acceptAnswer(Self.sfuAnswer(simulcast: "a=simulcast:recv q;~h;f"), to: offer)
        #expect(paused.sentEncodings.map(\.encodingIndex) == [0, 2])
        let alternatives = try Self.publisher.acceptAnswer(Self.sfuAnswer(simulcast: "a=simulcast:recv ~f,h;q"), to: offer)
        #expect(alternatives.sentEncodings.map(\.rid) == ["q", "h"], "the first alternative not paused")
    }

    /// RFC 8853 §5.3.2: a peer without simulcast ignores the lines, so its answer has none. We
    /// then send the highest encoding alone, without RID, so a plain receiver gets the best picture.
    @Test func anAnswerWithoutSimulcastGetsTheHighestEncodingAlone() throws {
        let video = try Self.publisher.acceptAnswer(Self.sfuAnswer(simulcast: nil, rids: []), to: Self.publisher.makeOffer())
        #expect(video.sentEncodings == [SentEncoding(encodingIndex: 2)])
        let chromium = try Setup.publisher.acceptAnswer(Setup.parse(.chromiumAnswerToCamrtpOffer), to: Setup.publisher.makeOffer())
        #expect(chromium.sentEncodings == [SentEncoding(encodingIndex: 0)], "no simulcast offered: encoding 0")
    }

    @Test func answersNamingRIDsWeNeverOfferedSayWhich() throws {
        let offer = Self.publisher.makeOffer()
        func error(_ answer: SessionDescription) -> String? {
            do {
                _ = try Self.publisher.acceptAnswer(answer, to: offer)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(try error(Self.sfuAnswer(simulcast: "a=simulcast:recv q;h;m", rids: ["q", "h"]))
            == "the answer names rid \"m\", which the offer did not: simulcast streams are the offer's a=rid lines")
        #expect(try error(Self.sfuAnswer(rids: ["q", "h", "f", "x"]))
            == "the answer names rid \"x\", which the offer did not: simulcast streams are the offer's a=rid lines")
        var sending = try Self.sfuAnswer()
        sending.media[0].rids[1].direction = .send
        #expect(error(sending) == "the answer has a=rid:\"h\" send; a stream we send is recv in the answer")
        #expect(try error(Self.sfuAnswer(simulcast: "a=simulcast:recv ~q;~h;~f"))
            == "the answer's a=simulcast:recv leaves no stream unpaused: nothing would be sent")
        #expect(try error(Self.sfuAnswer(simulcast: "a=simulcast:send q;h;f"))
            == "the answer's a=simulcast:recv leaves no stream unpaused: nothing would be sent")
    }
}
