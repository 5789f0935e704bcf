/// Reads the attributes of one `m=` section into its `MediaDescription`.
///
/// `a=rtpmap`, `a=fmtp` and `a=rtcp-fb` for a payload type the `m=` line does not list (or in a
/// non-RTP section) are kept as other attributes, as RFC 8866 section 6.6 lets a reader ignore them.
struct MediaSectionParser {
    var section: MediaDescription
    private var seen: Set<String> = []
    private var sourceIndex: [UInt32: Int] = [:]

    init(section: MediaDescription) {
        self.section = section
    }

    private mutating func once(_ field: String) throws(SDPParseError.Reason) {
        guard seen.insert(field).inserted else { throw .repeated("\(field) in one m= section") }
    }

    mutating func read(_ attribute: AttributeLine) throws(SDPParseError.Reason) {
        switch attribute.name {
        case "mid":
            try once("a=mid")
            section.mid = String(try attribute.requiredValue())
        case "ice-ufrag":
            try once("a=ice-ufrag")
            section.iceUsernameFragment = String(try attribute.requiredValue())
        case "ice-pwd":
            try once("a=ice-pwd")
            section.icePassword = String(try attribute.requiredValue())
        case "ice-options": section.iceOptions += SDPText.tokens(try attribute.requiredValue()).map(String.init)
        case "fingerprint": section.fingerprints.append(try Fingerprint(parsing: attribute.requiredValue()))
        case "setup":
            try once("a=setup")
            section.setup = try SetupRole(sdpValue: attribute.requiredValue())
        case "msid": section.streamIDs.append(try MediaStreamID(sdpValue: attribute.requiredValue()))
        case "rtpmap", "fmtp", "rtcp-fb": try readPayloadAttribute(attribute)
        case "rtcp":
            try once("a=rtcp")
            section.rtcp = try RTCPAttribute(sdpValue: attribute.requiredValue())
        case "rtcp-mux":
            try attribute.requireNoValue()
            section.rtcpMux = true
        case "rtcp-rsize":
            try attribute.requireNoValue()
            section.rtcpReducedSize = true
        case "extmap": section.extensions.append(try HeaderExtensionMapping(sdpValue: attribute.requiredValue()))
        case "framerate":
            try once("a=framerate")
            section.frameRate = try Self.frameRate(attribute.requiredValue())
        case "crypto": section.crypto.append(try CryptoAttribute(sdpValue: attribute.requiredValue()))
        case "ssrc-group": section.sourceGroups.append(try SSRCGroup(sdpValue: attribute.requiredValue()))
        case "ssrc": try readSource(attribute.requiredValue())
        case "rid": section.rids.append(try RIDAttribute(sdpValue: attribute.requiredValue()))
        case "simulcast":
            try once("a=simulcast")
            section.simulcast = try SimulcastAttribute(sdpValue: attribute.requiredValue())
        case "candidate": section.candidates.append(try Candidate(parsing: attribute.requiredValue()))
        case "end-of-candidates":
            try attribute.requireNoValue()
            section.endOfCandidates = true
        default:
            if let direction = MediaDirection(rawValue: attribute.name) {
                try attribute.requireNoValue()
                try once("a=<direction>")
                section.direction = direction
            } else {
                section.otherAttributes.append(attribute.kept)
            }
        }
    }

    private mutating func readPayloadAttribute(_ attribute: AttributeLine) throws(SDPParseError.Reason) {
        let field = "a=\(attribute.name)"
        let (format, rest) = SDPText.firstToken(try attribute.requiredValue())
        if attribute.name == "rtcp-fb", format == "*" {
            section.wildcardFeedback.append(try Self.feedback(rest))
            return
        }
        guard let payloadType = SDPText.unsigned(format, as: UInt8.self),
            let index = section.payloadFormats.firstIndex(where: { $0.payloadType == payloadType })
        else {
            section.otherAttributes.append(attribute.kept)
            return
        }
        switch attribute.name {
        case "rtpmap":
            try once("\(field):\(payloadType)")
            section.payloadFormats[index].rtpmap = try RTPMap(sdpText: rest)
        case "fmtp":
            try once("\(field):\(payloadType)")
            section.payloadFormats[index].parameters = FormatParameter.list(rest)
        default:
            section.payloadFormats[index].feedback.append(try Self.feedback(rest))
        }
    }

    private static func feedback(_ text: Substring) throws(SDPParseError.Reason) -> RTCPFeedback {
        guard !text.isEmpty else { throw .invalid(field: "a=rtcp-fb", problem: "no feedback type") }
        return RTCPFeedback(sdpValue: text)
    }

    /// `a=ssrc` lines of one SSRC are gathered into one `SourceDescription`, in first-seen order.
    private mutating func readSource(_ value: Substring) throws(SDPParseError.Reason) {
        let (ssrc, attribute) = try SourceDescription.parseLine(value)
        let index: Int
        if let known = sourceIndex[ssrc] {
            index = known
        } else {
            index = section.sources.count
            sourceIndex[ssrc] = index
            section.sources.append(SourceDescription(ssrc: ssrc, attributes: []))
        }
        if let attribute { section.sources[index].attributes.append(attribute) }
    }

    /// `<integer>[.<fraction>]`, below 10 000 with at most three decimals, so that the writer's
    /// decimal text reads back the same.
    private static func frameRate(_ text: Substring) throws(SDPParseError.Reason) -> Double {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let isDigits: (Substring) -> Bool = { !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
        guard parts.allSatisfy(isDigits), parts[0].count <= 4, parts.count == 1 || parts[1].count <= 3,
            let value = Double(text)
        else {
            throw .invalid(field: "a=framerate", problem: "expected a rate such as 30 or 29.97, found \(quoted(text))")
        }
        return value
    }
}
