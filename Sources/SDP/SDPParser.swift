extension SessionDescription {
    /// Reads a session description from the network: CRLF or LF line endings, trailing blanks
    /// and blank lines are accepted; anything else malformed throws, naming the line.
    public init(parsing text: String) throws(SDPParseError) {
        try self.init(parsing: text, limits: .standard)
    }

    public init(parsing text: String, limits: SDPParseLimits) throws(SDPParseError) {
        var parser = SDPParser(limits: limits)
        self = try parser.parse(text)
    }
}

/// The line loop: splits the text, checks each line's shape and hands it to the session or
/// the current media section.
struct SDPParser {
    let limits: SDPParseLimits
    private var session = SessionDescription(origin: Origin(sessionID: 0, address: .unspecifiedIPv4), timing: [])
    private var seen: Set<String> = []
    private var media: MediaSectionParser?
    private var candidateCount = 0

    init(limits: SDPParseLimits) {
        self.limits = limits
    }

    mutating func parse(_ text: String) throws(SDPParseError) -> SessionDescription {
        for (number, line) in try Self.lines(of: text, limits: limits) {
            do throws(SDPParseError.Reason) {
                try read(line)
            } catch {
                throw SDPParseError(lineNumber: number, reason: error)
            }
        }
        guard seen.contains("v=") else { throw SDPParseError(lineNumber: nil, reason: .missingVersion) }
        guard seen.contains("o=") else { throw SDPParseError(lineNumber: nil, reason: .missing("o=")) }
        if let media { session.media.append(media.section) }
        if session.timing.isEmpty { session.timing = [.permanent] }
        // Untyped fields are kept in the order the writer puts them (RFC 8866 section 5), so
        // that a description written and read again is the same value.
        session.otherFields = SDPField.inWritingOrder(session.otherFields, first: \.comesBeforeConnection)
        for index in session.media.indices {
            session.media[index].otherFields = SDPField.inWritingOrder(session.media[index].otherFields, first: \.isInformation)
        }
        try checkWrittenSize(of: session)
        return session
    }

    /// The limits hold for the description as written too, so that what is read reads back
    /// once written: CRLF line ends, `s=-` and `t=0 0` filled in can take a text that just fits
    /// past them.
    private func checkWrittenSize(of session: SessionDescription) throws(SDPParseError) {
        let lines = session.lines()
        guard lines.count <= limits.maxLines else {
            throw SDPParseError(lineNumber: nil, reason: .limitExceeded(what: "the number of lines as written", limit: limits.maxLines))
        }
        let size = lines.reduce(0) { $0 + $1.utf8.count + 2 }
        guard size <= limits.maxTextBytes else {
            throw SDPParseError(
                lineNumber: nil, reason: .limitExceeded(what: "the size as written, \(size) bytes,", limit: limits.maxTextBytes))
        }
    }

    /// The non-blank lines of `text` with their 1-based numbers, within the size and line caps.
    static func lines(of text: String, limits: SDPParseLimits) throws(SDPParseError) -> [(number: Int, line: Substring)] {
        let size = text.utf8.count
        guard size <= limits.maxTextBytes else {
            throw SDPParseError(lineNumber: nil, reason: .limitExceeded(what: "the text's size of \(size) bytes", limit: limits.maxTextBytes))
        }
        let rawLines = text.utf8.split(separator: 0x0A, maxSplits: limits.maxLines, omittingEmptySubsequences: false)
        // maxSplits leaves the rest in a last piece: a final empty piece is the last line's LF.
        if rawLines.count > limits.maxLines, let last = rawLines.last, !last.isEmpty {
            throw SDPParseError(lineNumber: nil, reason: .limitExceeded(what: "the number of lines", limit: limits.maxLines))
        }
        return rawLines.enumerated().compactMap { offset, raw in
            let line = trimmingLineEnd(Substring(raw))
            return line.isEmpty ? nil : (offset + 1, line)
        }
    }

    /// `<letter>=<value>` without control characters, split into the letter and the value.
    static func field(_ line: Substring) throws(SDPParseError.Reason) -> (type: Character, value: Substring) {
        let bytes = Array(line.utf8.prefix(2))
        guard bytes.count == 2, bytes[1] == UInt8(ascii: "="), isLetter(bytes[0]) else { throw .notAField }
        guard !line.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else { throw .controlCharacter }
        return (Character(Unicode.Scalar(bytes[0])), Substring(line.unicodeScalars.dropFirst(2)))
    }

    /// Drops a CR and trailing spaces or tabs.
    private static func trimmingLineEnd(_ line: Substring) -> Substring {
        let scalars = line.unicodeScalars
        guard let last = scalars.lastIndex(where: { $0 != "\r" && !SDPText.isBlank($0) }) else { return "" }
        return Substring(scalars[...last])
    }

    private mutating func read(_ line: Substring) throws(SDPParseError.Reason) {
        let (type, value) = try Self.field(line)
        guard seen.contains("v=") else {
            guard type == "v" else { throw .missingVersion }
            guard value == "0" else { throw .unsupportedVersion(String(value)) }
            seen.insert("v=")
            return
        }
        if type == "m" {
            try startMedia(value)
        } else if media != nil {
            try readMediaField(type, value)
        } else {
            try readSessionField(type, value)
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private mutating func once(_ field: String) throws(SDPParseError.Reason) {
        guard seen.insert(field).inserted else { throw .repeated(field) }
    }

    private mutating func startMedia(_ value: Substring) throws(SDPParseError.Reason) {
        if let media { session.media.append(media.section) }
        guard session.media.count < limits.maxMediaSections else {
            throw .limitExceeded(what: "the number of m= sections", limit: limits.maxMediaSections)
        }
        media = MediaSectionParser(section: try Self.mediaLine(value))
    }

    private mutating func readSessionField(_ type: Character, _ value: Substring) throws(SDPParseError.Reason) {
        switch type {
        case "v": throw .repeated("v=")
        case "o":
            try once("o=")
            session.origin = try Origin(sdpValue: value)
        case "s":
            try once("s=")
            session.sessionName = value.isEmpty ? "-" : String(value)
        case "c":
            try once("c=")
            session.connection = try ConnectionAddress(sdpValue: value, field: "c=")
        case "b": session.bandwidths.append(try Bandwidth(sdpValue: value))
        case "t": session.timing.append(try Timing(sdpValue: value))
        case "a": try readSessionAttribute(try AttributeLine(value))
        default: session.otherFields.append(SDPField(type: type, value: String(value)))
        }
    }

    private mutating func readSessionAttribute(_ attribute: AttributeLine) throws(SDPParseError.Reason) {
        switch attribute.name {
        case "group": session.groups.append(try MediaGroup(sdpValue: attribute.requiredValue()))
        case "ice-lite":
            try attribute.requireNoValue()
            session.iceLite = true
        case "ice-ufrag":
            try once("a=ice-ufrag")
            session.iceUsernameFragment = String(try attribute.requiredValue())
        case "ice-pwd":
            try once("a=ice-pwd")
            session.icePassword = String(try attribute.requiredValue())
        case "ice-options": session.iceOptions += SDPText.tokens(try attribute.requiredValue()).map(String.init)
        case "fingerprint": session.fingerprints.append(try Fingerprint(parsing: attribute.requiredValue()))
        case "setup":
            try once("a=setup")
            session.setup = try SetupRole(sdpValue: attribute.requiredValue())
        case "extmap": session.extensions.append(try HeaderExtensionMapping(sdpValue: attribute.requiredValue()))
        default:
            if let direction = MediaDirection(rawValue: attribute.name) {
                try attribute.requireNoValue()
                try once("a=<direction>")
                session.direction = direction
            } else {
                session.otherAttributes.append(attribute.kept)
            }
        }
    }

    private mutating func readMediaField(_ type: Character, _ value: Substring) throws(SDPParseError.Reason) {
        guard var parser = media else { return }
        switch type {
        case "v", "o", "s", "t", "r", "z", "u", "e", "p": throw .sessionFieldInMedia("\(type)=")
        case "c":
            guard parser.section.connection == nil else { throw .repeated("c= in one m= section") }
            parser.section.connection = try ConnectionAddress(sdpValue: value, field: "c=")
        case "b": parser.section.bandwidths.append(try Bandwidth(sdpValue: value))
        case "a":
            let attribute = try AttributeLine(value)
            if attribute.name == "candidate" {
                candidateCount += 1
                guard candidateCount <= limits.maxCandidates else {
                    throw .limitExceeded(what: "the number of a=candidate lines", limit: limits.maxCandidates)
                }
            }
            try parser.read(attribute)
        default: parser.section.otherFields.append(SDPField(type: type, value: String(value)))
        }
        media = parser
    }

    /// `m=<media> <port>[/<count>] <proto> <fmt> ...` (RFC 8866 section 5.14).
    static func mediaLine(_ value: Substring) throws(SDPParseError.Reason) -> MediaDescription {
        let field = "m="
        let parts = SDPText.tokens(value)
        guard parts.count >= 4 else {
            throw .invalid(field: field, problem: "expected \"<media> <port> <proto> <fmt> ...\", found \(quoted(value))")
        }
        let portText = SDPText.split(parts[1], at: "/")
        let port = try SDPText.number(portText?.head ?? parts[1], as: UInt16.self, field: field, what: "a port")
        let transport = TransportProtocol(rawValue: String(parts[2]))
        var section = MediaDescription(kind: MediaKind(rawValue: String(parts[0])), port: port, transportProtocol: transport)
        if let countText = portText?.tail {
            section.portCount = try SDPText.number(countText, as: UInt16.self, field: field, what: "a port count")
        }
        guard transport.carriesRTP else {
            section.otherFormats = parts.dropFirst(3).map(String.init)
            return section
        }
        var listed = Set<UInt8>()
        for text in parts.dropFirst(3) {
            let payloadType = try SDPText.number(text, as: UInt8.self, in: 0...127, field: field, what: "a payload type")
            guard listed.insert(payloadType).inserted else { throw .invalid(field: field, problem: "payload type \(payloadType) is listed twice") }
            section.payloadFormats.append(PayloadFormat(payloadType: payloadType))
        }
        return section
    }
}

/// An `a=` line split into its name and optional value (RFC 8866 section 5.13).
struct AttributeLine {
    let name: String
    let value: Substring?

    init(_ text: Substring) throws(SDPParseError.Reason) {
        if let (name, value) = SDPText.split(text, at: ":") {
            self.name = String(name)
            self.value = value
        } else {
            name = String(text)
            value = nil
        }
        guard !name.isEmpty else { throw .invalid(field: "a=", problem: "no attribute name") }
    }

    /// The value without leading blanks (Chromium writes `a=msid-semantic: WMS`), never empty.
    func requiredValue() throws(SDPParseError.Reason) -> Substring {
        guard let value, case let trimmed = SDPText.trimmingLeadingBlanks(value), !trimmed.isEmpty else {
            throw .invalid(field: "a=\(name)", problem: "needs a value")
        }
        return trimmed
    }

    func requireNoValue() throws(SDPParseError.Reason) {
        guard value == nil else { throw .invalid(field: "a=\(name)", problem: "takes no value") }
    }

    /// The attribute kept as written, for those the model does not type.
    var kept: Attribute { Attribute(name: name, value: value.map(String.init)) }
}
