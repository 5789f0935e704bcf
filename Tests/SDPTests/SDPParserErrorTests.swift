import SDP
import Testing

/// Malformed input throws an error naming the line and what was wrong, and the caps hold.
@Suite("SDP parser errors and limits")
struct SDPParserErrorTests {
    /// Lines 1–4 of a valid session; the line under test is line 5 or later.
    private static let head = ["v=0", "o=- 1 1 IN IP4 192.0.2.1", "s=-", "t=0 0"]
    private static let video = "m=video 9 UDP/TLS/RTP/SAVPF 96"

    struct Case: CustomStringConvertible, Sendable {
        let lines: [String]
        let lineNumber: Int?
        let reason: SDPParseError.Reason
        var description: String { "\(lines.last ?? "")" }

        init(_ lines: [String], _ lineNumber: Int?, _ reason: SDPParseError.Reason) {
            self.lines = lines
            self.lineNumber = lineNumber
            self.reason = reason
        }

        /// `lines` (separated by LF) from line 6 on, after the head and an `m=video` line; the
        /// last of them is at fault.
        static func media(_ lines: String, _ reason: SDPParseError.Reason) -> Case {
            let added = lines.split(separator: "\n").map(String.init)
            return Case(head + [video] + added, 5 + added.count, reason)
        }
    }

    static let cases: [Case] = [
        Case([], nil, .missingVersion),
        Case(["o=- 1 1 IN IP4 192.0.2.1"], 1, .missingVersion),
        Case(["v=1"], 1, .unsupportedVersion("1")),
        Case(["v=0", "v=0"], 2, .repeated("v=")),
        Case(["v=0", "hello"], 2, .notAField),
        Case(["v=0", "=x"], 2, .notAField),
        Case(["v=0", "s=-"], nil, .missing("o=")),
        Case(["v=0", "o=- 1 1 IN IP4"], 2, .invalid(
            field: "o=", problem: "expected \"<username> <sess-id> <sess-version> IN <addrtype> <address>\", found \"- 1 1 IN IP4\"")),
        Case(["v=0", "o=- x 1 IN IP4 192.0.2.1"], 2, .invalid(
            field: "o=", problem: "expected a session id (0…18446744073709551615), found \"x\"")),
        Case(["v=0", "o=- 1 1 IN IP9 192.0.2.1"], 2, .invalid(field: "o=", problem: "unknown address type \"IP9\"")),
        Case(head + ["o=- 1 1 IN IP4 192.0.2.1"], 5, .repeated("o=")),
        Case(head + ["c=IN IP4 192.0.2.1", "c=IN IP4 192.0.2.1"], 6, .repeated("c=")),
        Case(head + ["b=AS"], 5, .invalid(field: "b=", problem: "expected \"<modifier>:<value>\", found \"AS\"")),
        Case(head + ["t=0"], 5, .invalid(field: "t=", problem: "expected \"<start> <stop>\", found \"0\"")),
        Case(head + ["a=setup:maybe"], 5, .invalid(
            field: "a=setup", problem: "expected active, passive, actpass or holdconn, found \"maybe\"")),
        Case(head + ["a=ice-lite:yes"], 5, .invalid(field: "a=ice-lite", problem: "takes no value")),
        Case(head + ["a=:x"], 5, .invalid(field: "a=", problem: "no attribute name")),
        Case(head + ["a=sendonly", "a=recvonly"], 6, .repeated("a=<direction>")),
        Case(head + ["m=video 70000 RTP/AVP 96"], 5, .invalid(field: "m=", problem: "expected a port (0…65535), found \"70000\"")),
        Case(head + ["m=video 9 RTP/AVP"], 5, .invalid(
            field: "m=", problem: "expected \"<media> <port> <proto> <fmt> ...\", found \"video 9 RTP/AVP\"")),
        Case(head + ["m=video 9 RTP/AVP 128"], 5, .invalid(field: "m=", problem: "expected a payload type (0…127), found \"128\"")),
        Case(head + ["m=video 9 RTP/AVP vp8"], 5, .invalid(field: "m=", problem: "expected a payload type (0…127), found \"vp8\"")),
        Case(head + ["m=video 9 RTP/AVP 96 96"], 5, .invalid(field: "m=", problem: "payload type 96 is listed twice")),
        .media("t=0 0", .sessionFieldInMedia("t=")),
        .media("c=IN IP4 1.2.3.4\nc=IN IP4 1.2.3.4", .repeated("c= in one m= section")),
        .media("a=mid:0\na=mid:1", .repeated("a=mid in one m= section")),
        .media("a=mid", .invalid(field: "a=mid", problem: "needs a value")),
        .media("a=mid: ", .invalid(field: "a=mid", problem: "needs a value")),
        .media("a=rtcp-mux:1", .invalid(field: "a=rtcp-mux", problem: "takes no value")),
        .media("a=rtpmap:96 VP8", .invalid(field: "a=rtpmap", problem: "expected \"<encoding>/<clock rate>\", found \"VP8\"")),
        .media("a=rtpmap:96 VP8/fast", .invalid(field: "a=rtpmap", problem: "expected a clock rate (0…4294967295), found \"fast\"")),
        .media("a=rtpmap:96 VP8/90000\na=rtpmap:96 VP8/90000", .repeated("a=rtpmap:96 in one m= section")),
        .media("a=rtcp-fb:96", .invalid(field: "a=rtcp-fb", problem: "no feedback type")),
        .media("a=rtcp:99999", .invalid(field: "a=rtcp", problem: "expected a port (0…65535), found \"99999\"")),
        .media("a=extmap:0 urn:x", .invalid(field: "a=extmap", problem: "expected an extension id (1…255), found \"0\"")),
        .media("a=extmap:256 urn:x", .invalid(field: "a=extmap", problem: "expected an extension id (1…255), found \"256\"")),
        .media("a=extmap:1/sideways urn:x", .invalid(field: "a=extmap", problem: "unknown direction \"sideways\"")),
        .media("a=extmap:1", .invalid(field: "a=extmap", problem: "expected \"<id>[/<direction>] <URI>\", found \"1\"")),
        .media("a=ssrc:-1 cname:x", .invalid(field: "a=ssrc", problem: "expected an SSRC (0…4294967295), found \"-1\"")),
        .media("a=ssrc:4294967296 cname:x", .invalid(field: "a=ssrc", problem: "expected an SSRC (0…4294967295), found \"4294967296\"")),
        .media("a=ssrc-group:FID", .invalid(field: "a=ssrc-group", problem: "expected \"<semantics> <ssrc>...\", found \"FID\"")),
        .media("a=framerate:fast", .invalid(field: "a=framerate", problem: "expected a rate such as 30 or 29.97, found \"fast\"")),
        .media("a=framerate:nan", .invalid(field: "a=framerate", problem: "expected a rate such as 30 or 29.97, found \"nan\"")),
        .media("a=fingerprint:sha-256 AB:CD", .invalid(field: "a=fingerprint", problem: "a sha-256 digest has 32 bytes, found 2")),
        .media("a=fingerprint:sha-256 AB:+D", .invalid(
            field: "a=fingerprint", problem: "expected hex pairs separated by colons, found \"AB:+D\"")),
        .media("a=fingerprint:sha-256", .invalid(
            field: "a=fingerprint", problem: "expected \"<hash-function> <XX:XX:...>\", found \"sha-256\"")),
        .media("a=crypto:1 AES_CM_128_HMAC_SHA1_80 key:abc", .invalid(field: "a=crypto", problem: "only inline: keys are supported")),
        .media("a=candidate:1 1 udp 1 192.0.2.1 70000 typ host", .invalid(
            field: "a=candidate", problem: "expected a port (0…65535), found \"70000\"")),
        .media("a=candidate:1 0 udp 1 192.0.2.1 5000 typ host", .invalid(
            field: "a=candidate", problem: "expected a component id (1…256), found \"0\"")),
        .media("a=candidate:1 1 udp 1 192.0.2.1 5000 type host", .invalid(
            field: "a=candidate", problem: "expected \"typ\", found \"type\"")),
        .media("a=candidate:1 1 udp 1 192.0.2.1 5000 typ host generation", .invalid(
            field: "a=candidate", problem: "\"generation\" has no value")),
        .media("a=candidate:1 1 udp 1 192.0.2.1 5000", .invalid(
            field: "a=candidate",
            problem: "expected \"<foundation> <component> <transport> <priority> <address> <port> typ <type>\", found 6 fields")),
        .media("a=msid:a b c", .invalid(field: "a=msid", problem: "expected \"<stream id> [<track id>]\", found \"a b c\"")),
        .media("a=mid:0\u{0}", .controlCharacter),
        .media("a=mid:0\rx", .controlCharacter),
    ]

    @Test(arguments: cases)
    func malformedInputNamesTheLineAndTheProblem(_ testCase: Case) {
        let text = testCase.lines.map { $0 + "\r\n" }.joined()
        #expect(throws: SDPParseError(lineNumber: testCase.lineNumber, reason: testCase.reason)) {
            try SessionDescription(parsing: text)
        }
    }

    @Test func theMessageIsReadable() {
        let text = (Self.head + [Self.video, "a=candidate:1 1 udp 1 192.0.2.1 70000 typ host"]).joined(separator: "\n")
        do {
            _ = try SessionDescription(parsing: text)
            Issue.record("parsed a candidate with port 70000")
        } catch {
            #expect(error.description == "SDP line 6: a=candidate: expected a port (0…65535), found \"70000\"")
        }
    }

    /// A hostile value is quoted only in part, so an error message stays short.
    @Test func longValuesAreCutInMessages() {
        let text = (Self.head + [Self.video, "a=setup:" + String(repeating: "x", count: 10_000)]).joined(separator: "\n")
        do {
            _ = try SessionDescription(parsing: text)
            Issue.record("parsed a bad setup role")
        } catch {
            #expect(error.description.count < 200)
        }
    }

    @Test func theTextSizeIsCapped() {
        let limits = SDPParseLimits(maxTextBytes: 100)
        let text = (Self.head + ["i=" + String(repeating: "x", count: 100)]).joined(separator: "\r\n")
        let size = text.utf8.count
        #expect(throws: SDPParseError(lineNumber: nil, reason: .limitExceeded(what: "the text's size of \(size) bytes", limit: 100))) {
            try SessionDescription(parsing: text, limits: limits)
        }
        #expect(throws: SDPParseError.self) {
            try SessionDescription(parsing: String(repeating: "a=x\r\n", count: 30_000))
        }
    }

    @Test func theLineCountIsCappedButATrailingNewlineIsNot() throws {
        let limits = SDPParseLimits(maxLines: 6)
        let six = Self.head + ["a=one", "a=two"]
        let parsed = try SessionDescription(parsing: six.map { $0 + "\r\n" }.joined(), limits: limits)
        #expect(parsed.otherAttributes.map(\.name) == ["one", "two"])
        #expect(throws: SDPParseError(lineNumber: nil, reason: .limitExceeded(what: "the number of lines", limit: 6))) {
            try SessionDescription(parsing: (six + ["a=three"]).joined(separator: "\n"), limits: limits)
        }
    }

    @Test func mediaSectionsAreCapped() {
        let sections = Array(repeating: Self.video, count: 3)
        #expect(throws: SDPParseError(lineNumber: 7, reason: .limitExceeded(what: "the number of m= sections", limit: 2))) {
            try SessionDescription(parsing: (Self.head + sections).joined(separator: "\n"), limits: SDPParseLimits(maxMediaSections: 2))
        }
        #expect(throws: SDPParseError.self) {
            try SessionDescription(parsing: (Self.head + Array(repeating: Self.video, count: 65)).joined(separator: "\n"))
        }
    }

    @Test func candidatesAreCappedAcrossSections() {
        let candidate = "a=candidate:1 1 udp 1 192.0.2.1 5000 typ host"
        let lines = Self.head + [Self.video, candidate, candidate, Self.video, candidate]
        #expect(throws: SDPParseError(lineNumber: 9, reason: .limitExceeded(what: "the number of a=candidate lines", limit: 2))) {
            try SessionDescription(parsing: lines.joined(separator: "\n"), limits: SDPParseLimits(maxCandidates: 2))
        }
    }

    @Test func candidateExtensionsAreCapped() {
        let pairs = (0..<33).map { "x\($0) 1" }.joined(separator: " ")
        #expect(throws: SDPParseError(lineNumber: nil, reason: .limitExceeded(what: "a=candidate extensions", limit: 32))) {
            try Candidate(sdpValue: "1 1 udp 1 192.0.2.1 5000 typ host " + pairs)
        }
    }

    @Test func fingerprintDigestsAreCapped() {
        let pairs = Array(repeating: "AB", count: 65).joined(separator: ":")
        #expect(throws: SDPParseError(lineNumber: nil, reason: .limitExceeded(what: "a=fingerprint digest length", limit: 64))) {
            try Fingerprint(sdpValue: "sha-3000 " + pairs)
        }
    }
}
