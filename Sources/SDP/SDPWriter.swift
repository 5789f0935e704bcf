/// The writer: RFC 8866 section 5's field order, then attributes in one fixed order per level,
/// so the same value always gives the same bytes.
///
/// Media attributes: `a=mid`, ICE, DTLS, `a=msid`, per payload type `a=rtpmap`, `a=rtcp-fb`,
/// `a=fmtp`, then `a=rtcp`, `a=rtcp-mux`, `a=rtcp-rsize`, `a=extmap`, `a=framerate`, `a=crypto`,
/// `a=ssrc-group`, `a=ssrc`, `a=rid`, `a=simulcast` (as Chrome writes them), the direction,
/// other attributes, and candidates last. Plain-RTP readers (ffmpeg, GStreamer) accept any
/// order; this one keeps the text camrtp wrote before.
extension SessionDescription {
    /// The text with CRLF line endings (RFC 8866 section 5).
    public func serialized() -> String {
        lines().map { $0 + "\r\n" }.joined()
    }

    /// The lines without line endings. A CR or LF inside a value (which RFC 8866 section 5
    /// forbids) becomes a space, so no value can start a line of its own.
    public func lines() -> [String] {
        sessionLines().map(SDPAttributeLines.singleLine) + media.flatMap { $0.lines() }
    }

    private func sessionLines() -> [String] {
        var lines = [
            "v=0",
            "o=\(origin.sdpValue)",
            "s=\(sessionName.isEmpty ? "-" : sessionName)",
        ]
        lines += otherFields.filter(\.comesBeforeConnection).map(\.sdpLine)
        if let connection { lines.append("c=IN \(connection.sdpText)") }
        lines += bandwidths.map { "b=\($0.sdpValue)" }
        lines += timing.map { "t=\($0.startTime) \($0.stopTime)" }
        lines += otherFields.filter { !$0.comesBeforeConnection }.map(\.sdpLine)
        lines += groups.map { "a=group:\($0.sdpValue)" }
        if iceLite { lines.append("a=ice-lite") }
        lines += SDPAttributeLines.ice(usernameFragment: iceUsernameFragment, password: icePassword, options: iceOptions)
        lines += fingerprints.map { "a=fingerprint:\($0.sdpValue)" }
        if let setup { lines.append("a=setup:\(setup.rawValue)") }
        lines += extensions.map { "a=extmap:\($0.sdpValue)" }
        if let direction { lines.append("a=\(direction.rawValue)") }
        lines += otherAttributes.map(\.sdpLine)
        return lines
    }
}

extension MediaDescription {
    /// This section's lines, from `m=` on, as `SessionDescription.lines()` writes them.
    public func lines() -> [String] {
        unsanitizedLines().map(SDPAttributeLines.singleLine)
    }

    private func unsanitizedLines() -> [String] {
        let formats = payloadFormats.map { String($0.payloadType) } + otherFormats
        let port = portCount.map { "\(self.port)/\($0)" } ?? "\(self.port)"
        var lines = [(["m=\(kind.rawValue)", port, transportProtocol.rawValue] + formats).joined(separator: " ")]
        lines += otherFields.filter(\.isInformation).map(\.sdpLine)
        if let connection { lines.append("c=IN \(connection.sdpText)") }
        lines += bandwidths.map { "b=\($0.sdpValue)" }
        lines += otherFields.filter { !$0.isInformation }.map(\.sdpLine)
        if let mid { lines.append("a=mid:\(mid)") }
        lines += SDPAttributeLines.ice(usernameFragment: iceUsernameFragment, password: icePassword, options: iceOptions)
        lines += fingerprints.map { "a=fingerprint:\($0.sdpValue)" }
        if let setup { lines.append("a=setup:\(setup.rawValue)") }
        lines += streamIDs.map { "a=msid:\($0.sdpValue)" }
        lines += wildcardFeedback.map { "a=rtcp-fb:* \($0.sdpValue)" }
        for format in payloadFormats {
            if let rtpmap = format.rtpmap { lines.append("a=rtpmap:\(format.payloadType) \(rtpmap.sdpText)") }
            lines += format.feedback.map { "a=rtcp-fb:\(format.payloadType) \($0.sdpValue)" }
            if let fmtp = format.fmtpValue { lines.append("a=fmtp:\(fmtp)") }
        }
        if let rtcp { lines.append("a=rtcp:\(rtcp.sdpValue)") }
        if rtcpMux { lines.append("a=rtcp-mux") }
        if rtcpReducedSize { lines.append("a=rtcp-rsize") }
        lines += extensions.map { "a=extmap:\($0.sdpValue)" }
        if let frameRate { lines.append("a=framerate:\(SDPAttributeLines.decimal(frameRate))") }
        lines += crypto.map { "a=crypto:\($0.sdpValue)" }
        lines += sourceGroups.map { "a=ssrc-group:\($0.sdpValue)" }
        lines += sources.flatMap(\.sdpValues).map { "a=ssrc:\($0)" }
        lines += rids.map { "a=rid:\($0.sdpValue)" }
        if let simulcast { lines.append("a=simulcast:\(simulcast.sdpValue)") }
        if let direction { lines.append("a=\(direction.rawValue)") }
        lines += otherAttributes.map(\.sdpLine)
        lines += candidates.map { "a=candidate:\($0.sdpValue)" }
        if endOfCandidates { lines.append("a=end-of-candidates") }
        return lines
    }
}

enum SDPAttributeLines {
    /// A CR or LF becomes a space.
    static func singleLine(_ line: String) -> String {
        let isBreak: (Unicode.Scalar) -> Bool = { $0 == "\r" || $0 == "\n" }
        guard line.unicodeScalars.contains(where: isBreak) else { return line }
        return String(String.UnicodeScalarView(line.unicodeScalars.map { isBreak($0) ? " " : $0 }))
    }

    static func ice(usernameFragment: String?, password: String?, options: [String]) -> [String] {
        var lines: [String] = []
        if let usernameFragment { lines.append("a=ice-ufrag:\(usernameFragment)") }
        if let password { lines.append("a=ice-pwd:\(password)") }
        if !options.isEmpty { lines.append("a=ice-options:\(options.joined(separator: " "))") }
        return lines
    }

    /// `30` for a whole number, else the shortest text that reads back the same (`29.97`).
    static func decimal(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
