import SDP
import Testing

/// Descriptions that once read back as a different value after being written, found by the
/// `sdp` fuzz target: whatever the parser accepts, the writer must reproduce.
@Suite("SDP written and read back")
struct SDPRoundTripTests {
    /// Parses `text`, writes it, parses that, and expects the same value and the same text again.
    private func expectRoundTrip(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> SessionDescription {
        let description = try SessionDescription(parsing: text)
        let written = description.serialized()
        let reread = try SessionDescription(parsing: written)
        #expect(reread == description, "wrote\n\(written)", sourceLocation: sourceLocation)
        #expect(reread.serialized() == written, sourceLocation: sourceLocation)
        return description
    }

    @Test func untypedSessionFieldsReadBackInWritingOrder() throws {
        let description = try expectRoundTrip("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nk=clear\r\ni=info\r\nt=0 0\r\nx=y\r\nu=http://example.com\r\n")
        #expect(description.otherFields.map(\.type) == ["i", "u", "k", "x"])
    }

    @Test func untypedMediaFieldsReadBackInWritingOrder() throws {
        let description = try expectRoundTrip(
            "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=video 9 RTP/AVP 96\r\nk=prompt\r\ni=camera\r\na=rtpmap:96 VP8/90000\r\n")
        #expect(description.media.first?.otherFields.map(\.type) == ["i", "k"])
    }

    /// LF line ends within the size cap become CRLF past it: the parser refuses what would not
    /// read back once written, and reads it with room for the CRs.
    @Test func whatReadsWithinTheSizeCapStillFitsItOnceWritten() throws {
        let text = "v=0\no=- 1 1 IN IP4 0.0.0.0\ns=-\nt=0 0\n"
        let written = text.utf8.count + 4
        let exact = SDPParseLimits(maxTextBytes: text.utf8.count)
        #expect(throws: SDPParseError(lineNumber: nil, reason: .limitExceeded(what: "the size as written, \(written) bytes,", limit: text.utf8.count))) {
            try SessionDescription(parsing: text, limits: exact)
        }
        let roomy = SDPParseLimits(maxTextBytes: written)
        let description = try SessionDescription(parsing: text, limits: roomy)
        #expect(try SessionDescription(parsing: description.serialized(), limits: roomy) == description)
    }

    /// Without `s=` and `t=` the writer adds both lines, which may pass the line cap.
    @Test func whatReadsWithinTheLineCapStillFitsItOnceWritten() throws {
        let text = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\n"
        #expect(throws: SDPParseError(lineNumber: nil, reason: .limitExceeded(what: "the number of lines as written", limit: 2))) {
            try SessionDescription(parsing: text, limits: SDPParseLimits(maxLines: 2))
        }
        let roomy = SDPParseLimits(maxLines: 4)
        let description = try SessionDescription(parsing: text, limits: roomy)
        #expect(try SessionDescription(parsing: description.serialized(), limits: roomy) == description)
    }
}
