import SDP
import Testing

@Suite("SDP: trickle-ice-sdpfrag (RFC 8840, RFC 9725 section 4.3)")
struct SDPFragmentTests {
    /// RFC 9725 section 4.3.1's trickle PATCH body, as the RFC prints it.
    static let trickle = """
        a=group:BUNDLE 0 1\r
        m=audio 9 UDP/TLS/RTP/SAVPF 111\r
        a=mid:0\r
        a=ice-ufrag:EsAw\r
        a=ice-pwd:P2uYro0UCOQ4zxjKXaWCBui1\r
        a=candidate:1387637174 1 udp 2122260223 192.0.2.1 61764 typ host generation 0 ufrag EsAw network-id 1\r
        a=candidate:3471623853 1 udp 2122194687 198.51.100.2 61765 typ host generation 0 ufrag EsAw network-id 2\r
        a=candidate:473322822 1 tcp 1518280447 192.0.2.1 9 typ host tcptype active generation 0 ufrag EsAw network-id 1\r
        a=candidate:2154773085 1 tcp 1518214911 198.51.100.2 9 typ host tcptype active generation 0 ufrag EsAw network-id 2\r
        a=end-of-candidates\r

        """

    /// RFC 9725 section 4.3.2's answer to an ICE restart.
    static let restartAnswer = """
        a=ice-lite\r
        a=ice-options:trickle ice2\r
        a=group:BUNDLE 0 1\r
        m=audio 9 UDP/TLS/RTP/SAVPF 111\r
        a=mid:0\r
        a=ice-ufrag:289b31b754eaa438\r
        a=ice-pwd:0b66f472495ef0ccac7bda653ab6be49ea13114472a5d10a\r
        a=candidate:1 1 udp 2130706431 198.51.100.1 39132 typ host\r
        a=end-of-candidates\r

        """

    @Test func readsTheRFCTricklePatch() throws {
        let fragment = try SDPFragment(parsing: Self.trickle)
        #expect(fragment.groups == [.bundle(["0", "1"])])
        #expect(fragment.sections.count == 1)
        let section = try #require(fragment.sections.first)
        #expect(section.mediaLine == "audio 9 UDP/TLS/RTP/SAVPF 111")
        #expect(section.mid == "0")
        #expect(fragment.iceCredentials == ICEParameters(usernameFragment: "EsAw", password: "P2uYro0UCOQ4zxjKXaWCBui1"))
        #expect(fragment.candidates.count == 4)
        #expect(fragment.candidates[0].address == "192.0.2.1" && fragment.candidates[0].port == 61764 && fragment.candidates[0].isUDP)
        #expect(fragment.candidates[2].transport == "tcp" && fragment.candidates[2].extensionValue("tcptype") == "active")
        #expect(fragment.isEndOfCandidates)
        // Written back, the bytes are the RFC's.
        #expect(fragment.serialized() == Self.trickle)
    }

    @Test func readsAndWritesTheRFCRestartAnswer() throws {
        let fragment = try SDPFragment(parsing: Self.restartAnswer)
        #expect(fragment.iceLite)
        #expect(fragment.iceOptions == ["trickle", "ice2"])
        #expect(fragment.iceCredentials?.usernameFragment == "289b31b754eaa438")
        #expect(fragment.serialized() == Self.restartAnswer)
        #expect(try SDPFragment(parsing: fragment.serialized()) == fragment)
    }

    /// Credentials at session level (as some clients write them), LF line ends, blank lines,
    /// trailing blanks, and lines a fragment does not need.
    @Test func takesSessionLevelCredentialsAndSkipsTheRest() throws {
        let text = "a=ice-ufrag:abcd\na=ice-pwd:efghijklmnopqrstuvwxyz12\nx=unknown\n\nm=video 9 UDP/TLS/RTP/SAVPF 96  \nc=IN IP4 0.0.0.0\na=mid:0\na=rtcp-mux\na=candidate:1 1 UDP 2130706431 10.0.0.1 5000 typ host\n"
        let fragment = try SDPFragment(parsing: text)
        #expect(fragment.iceCredentials == ICEParameters(usernameFragment: "abcd", password: "efghijklmnopqrstuvwxyz12"))
        #expect(fragment.sections.map(\.mediaLine) == ["video 9 UDP/TLS/RTP/SAVPF 96"])
        #expect(fragment.candidates.count == 1)
        #expect(!fragment.isEndOfCandidates)
        // A section's own credentials win over the session's.
        let both = try SDPFragment(parsing: "a=ice-ufrag:aaaa\na=ice-pwd:bbbbbbbbbbbbbbbbbbbbbbbb\nm=video 9 UDP/TLS/RTP/SAVPF 96\na=ice-ufrag:cccc\na=ice-pwd:dddddddddddddddddddddddd\n")
        #expect(both.iceCredentials?.usernameFragment == "cccc")
        // End of candidates alone, at session level.
        #expect(try SDPFragment(parsing: "a=end-of-candidates\r\n").isEndOfCandidates)
        #expect(try SDPFragment(parsing: "").sections.isEmpty)
    }

    @Test(arguments: [
        ("v=0\r\n", 1, "v=: a trickle-ice-sdpfrag holds no v= line (RFC 8840 section 9)"),
        ("a=candidate:1 1 UDP 1 10.0.0.1 5000 typ host\r\n", 1, "a=candidate: belongs to an m= section (RFC 8840 section 9)"),
        ("m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=candidate:1 1 UDP\r\n", 2, nil),
        ("m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=ice-ufrag:a\r\na=ice-ufrag:b\r\n", 3, "a=ice-ufrag appears more than once"),
        ("a=ice-pwd:\r\n", 1, "a=ice-pwd: needs a value"),
        ("m=video\r\n", 1, nil),
        ("garbage\r\n", 1, "expected <letter>=<value>"),
        ("a=ice-ufrag:a\u{0}b\r\n", 1, "contains a control character"),
        ("m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=end-of-candidates:now\r\n", 2, "a=end-of-candidates: takes no value"),
    ])
    func refusesMalformedFragmentsNamingTheLine(_ text: String, _ line: Int, _ reason: String?) {
        #expect {
            try SDPFragment(parsing: text)
        } throws: { error in
            guard let error = error as? SDPParseError, error.lineNumber == line else { return false }
            return reason.map { "\(error.reason)" == $0 } ?? true
        }
    }

    @Test func boundsSizeSectionsAndCandidates() {
        let limits = SDPFragment.defaultLimits
        let big = String(repeating: "a=x\r\n", count: limits.maxTextBytes / 5 + 1)
        #expect(throws: SDPParseError.self) { try SDPFragment(parsing: big) }
        let sections = String(repeating: "m=video 9 UDP/TLS/RTP/SAVPF 96\r\n", count: limits.maxMediaSections + 1)
        #expect(throws: SDPParseError(lineNumber: 17, reason: .limitExceeded(what: "the number of m= sections", limit: 16))) {
            try SDPFragment(parsing: sections)
        }
        let candidates = "m=video 9 UDP/TLS/RTP/SAVPF 96\r\n"
            + String(repeating: "a=candidate:1 1 UDP 1 10.0.0.1 5000 typ host\r\n", count: limits.maxCandidates + 1)
        #expect(throws: SDPParseError(lineNumber: 258, reason: .limitExceeded(what: "the number of a=candidate lines", limit: 256))) {
            try SDPFragment(parsing: candidates)
        }
    }

    @Test func writesWhatIsBuilt() {
        let fragment = SDPFragment(
            iceOptions: ["trickle"],
            sections: [
                SDPFragment.Section(
                    mediaLine: "video 9 UDP/TLS/RTP/SAVPF 96", mid: "0",
                    iceCredentials: ICEParameters(usernameFragment: "u1", password: "p1p1p1p1p1p1p1p1p1p1p1p1"),
                    candidates: [Candidate(foundation: "1", transport: "UDP", priority: 2_130_706_431, address: "10.0.0.1", port: 5000, type: .host)],
                    endOfCandidates: true),
            ])
        #expect(fragment.serialized() == """
            a=ice-options:trickle\r
            m=video 9 UDP/TLS/RTP/SAVPF 96\r
            a=mid:0\r
            a=ice-ufrag:u1\r
            a=ice-pwd:p1p1p1p1p1p1p1p1p1p1p1p1\r
            a=candidate:1 1 UDP 2130706431 10.0.0.1 5000 typ host\r
            a=end-of-candidates\r

            """)
    }
}
