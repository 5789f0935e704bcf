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
}
