/// An `application/trickle-ice-sdpfrag` body (RFC 8840 section 9): the ICE lines of a session
/// description without the rest, as a WHIP or WHEP client PATCHes them to its session to trickle
/// candidates or restart ICE (RFC 9725 sections 4.3.1 and 4.3.2), and as the session answers a
/// restart.
///
///     a=ice-options:trickle ice2            session level: ice-lite, ice-options, group,
///     a=group:BUNDLE 0                      (ice-ufrag, ice-pwd, end-of-candidates)
///     m=video 9 UDP/TLS/RTP/SAVPF 96        one m= line per section, as in the offer
///     a=mid:0
///     a=ice-ufrag:EsAw                      ice-ufrag and ice-pwd where the offer had them
///     a=ice-pwd:P2uYro0UCOQ4zxjKXaWCBui1
///     a=candidate:1387637174 1 udp 2122260223 192.0.2.1 61764 typ host
///     a=end-of-candidates
///
/// It is read like a session description (CRLF or LF, no control characters, the same caps),
/// but holds no `v=`, `o=`, `s=` or `t=` line. `c=`, `b=` and attributes a fragment does not
/// need are skipped. A candidate belongs to a section, never to the session.
public struct SDPFragment: Sendable, Hashable {
    public struct Section: Sendable, Hashable {
        /// The `m=` line's value, as written (`video 9 UDP/TLS/RTP/SAVPF 96`).
        public var mediaLine: String
        public var mid: String?
        public var iceUsernameFragment: String?
        public var icePassword: String?
        public var candidates: [Candidate]
        public var endOfCandidates: Bool

        public init(
            mediaLine: String, mid: String? = nil, iceCredentials: ICEParameters? = nil, candidates: [Candidate] = [],
            endOfCandidates: Bool = false
        ) {
            self.mediaLine = mediaLine
            self.mid = mid
            iceUsernameFragment = iceCredentials?.usernameFragment
            icePassword = iceCredentials?.password
            self.candidates = candidates
            self.endOfCandidates = endOfCandidates
        }
    }

    public var iceLite: Bool
    public var iceOptions: [String]
    public var groups: [MediaGroup]
    public var iceUsernameFragment: String?
    public var icePassword: String?
    /// `a=end-of-candidates` at session level: for every section.
    public var endOfCandidates: Bool
    public var sections: [Section]

    public init(
        iceLite: Bool = false, iceOptions: [String] = [], groups: [MediaGroup] = [], iceCredentials: ICEParameters? = nil,
        endOfCandidates: Bool = false, sections: [Section] = []
    ) {
        self.iceLite = iceLite
        self.iceOptions = iceOptions
        self.groups = groups
        iceUsernameFragment = iceCredentials?.usernameFragment
        icePassword = iceCredentials?.password
        self.endOfCandidates = endOfCandidates
        self.sections = sections
    }

    /// The credentials the fragment carries: the first section's, else the session's. Present
    /// and different from the current ones, they ask for an ICE restart (RFC 9725 section 4.3.2).
    public var iceCredentials: ICEParameters? {
        let section = sections.first
        guard let usernameFragment = section?.iceUsernameFragment ?? iceUsernameFragment,
            let password = section?.icePassword ?? icePassword
        else { return nil }
        return ICEParameters(usernameFragment: usernameFragment, password: password)
    }

    /// Every section's candidates, in order (with BUNDLE there is one section).
    public var candidates: [Candidate] { sections.flatMap(\.candidates) }

    /// The peer has no more candidates: said at session level or in every section.
    public var isEndOfCandidates: Bool {
        endOfCandidates || (!sections.isEmpty && sections.allSatisfy(\.endOfCandidates))
    }

    /// The fragment's lines, CRLF after each.
    public func serialized() -> String {
        var lines: [String] = []
        if iceLite { lines.append("a=ice-lite") }
        if !iceOptions.isEmpty { lines.append("a=ice-options:" + iceOptions.joined(separator: " ")) }
        lines += groups.map { "a=group:" + $0.sdpValue }
        if let iceUsernameFragment { lines.append("a=ice-ufrag:" + iceUsernameFragment) }
        if let icePassword { lines.append("a=ice-pwd:" + icePassword) }
        if endOfCandidates { lines.append("a=end-of-candidates") }
        for section in sections {
            lines.append("m=" + section.mediaLine)
            if let mid = section.mid { lines.append("a=mid:" + mid) }
            if let fragment = section.iceUsernameFragment { lines.append("a=ice-ufrag:" + fragment) }
            if let password = section.icePassword { lines.append("a=ice-pwd:" + password) }
            lines += section.candidates.map { "a=candidate:" + $0.sdpValue }
            if section.endOfCandidates { lines.append("a=end-of-candidates") }
        }
        return lines.map { SDPAttributeLines.singleLine($0) + "\r\n" }.joined()
    }

    /// The fragment that signals ICE values of `description`'s first section (the BUNDLE tag,
    /// the only one that carries candidates under max-bundle, RFC 9725 section 4.3.1): its `m=`
    /// line and mid, the session's bundle group, and `transport`'s credentials, options and
    /// candidates, the credentials at media level as our descriptions have them.
    public init(describing transport: LocalTransportParameters, in description: SessionDescription) {
        self.init(iceLite: transport.iceLite, iceOptions: transport.iceOptions, groups: description.bundleGroup.map { [$0] } ?? [])
        guard let media = description.media.first, let mediaLine = media.lines().first else { return }
        sections = [
            Section(
                mediaLine: String(mediaLine.dropFirst(2)), mid: media.mid, iceCredentials: transport.iceCredentials,
                candidates: transport.candidates, endOfCandidates: transport.endOfCandidates),
        ]
    }
}

extension SDPFragment {
    /// A fragment's caps: a PATCH body carries one section and a few dozen candidates.
    public static let defaultLimits = SDPParseLimits(maxTextBytes: 65_536, maxLines: 1_024, maxMediaSections: 16, maxCandidates: 256)

    /// Reads a PATCH body; anything malformed throws, naming the line.
    public init(parsing text: String, limits: SDPParseLimits = SDPFragment.defaultLimits) throws(SDPParseError) {
        var reader = SDPFragmentReader(limits: limits)
        self = try reader.read(text)
    }
}

/// The line loop of `SDPFragment(parsing:)`, on the session parser's line checks.
struct SDPFragmentReader {
    let limits: SDPParseLimits
    private var fragment = SDPFragment()
    private var seen: Set<String> = []
    private var sectionSeen: Set<String> = []
    private var candidateCount = 0

    init(limits: SDPParseLimits) {
        self.limits = limits
    }

    mutating func read(_ text: String) throws(SDPParseError) -> SDPFragment {
        for (number, line) in try SDPParser.lines(of: text, limits: limits) {
            do throws(SDPParseError.Reason) {
                let (type, value) = try SDPParser.field(line)
                switch type {
                case "m": try startSection(value)
                case "a": try readAttribute(try AttributeLine(value))
                case "v", "o", "s", "t": throw .invalid(field: "\(type)=", problem: "a trickle-ice-sdpfrag holds no \(type)= line (RFC 8840 section 9)")
                default: break
                }
            } catch {
                throw SDPParseError(lineNumber: number, reason: error)
            }
        }
        return fragment
    }

    private mutating func startSection(_ value: Substring) throws(SDPParseError.Reason) {
        guard fragment.sections.count < limits.maxMediaSections else {
            throw .limitExceeded(what: "the number of m= sections", limit: limits.maxMediaSections)
        }
        _ = try SDPParser.mediaLine(value)
        fragment.sections.append(SDPFragment.Section(mediaLine: String(SDPText.trimmingBlanks(value))))
        sectionSeen = []
    }

    private mutating func readAttribute(_ attribute: AttributeLine) throws(SDPParseError.Reason) {
        guard !fragment.sections.isEmpty else { return try readSessionAttribute(attribute) }
        let last = fragment.sections.count - 1
        switch attribute.name {
        case "mid":
            try once("a=mid", in: &sectionSeen)
            fragment.sections[last].mid = String(try attribute.requiredValue())
        case "ice-ufrag":
            try once("a=ice-ufrag", in: &sectionSeen)
            fragment.sections[last].iceUsernameFragment = String(try attribute.requiredValue())
        case "ice-pwd":
            try once("a=ice-pwd", in: &sectionSeen)
            fragment.sections[last].icePassword = String(try attribute.requiredValue())
        case "candidate":
            candidateCount += 1
            guard candidateCount <= limits.maxCandidates else {
                throw .limitExceeded(what: "the number of a=candidate lines", limit: limits.maxCandidates)
            }
            fragment.sections[last].candidates.append(try Candidate(parsing: attribute.requiredValue()))
        case "end-of-candidates":
            try attribute.requireNoValue()
            fragment.sections[last].endOfCandidates = true
        default:
            break
        }
    }

    private mutating func readSessionAttribute(_ attribute: AttributeLine) throws(SDPParseError.Reason) {
        switch attribute.name {
        case "ice-lite":
            try attribute.requireNoValue()
            fragment.iceLite = true
        case "ice-options": fragment.iceOptions += SDPText.tokens(try attribute.requiredValue()).map(String.init)
        case "group": fragment.groups.append(try MediaGroup(sdpValue: attribute.requiredValue()))
        case "ice-ufrag":
            try once("a=ice-ufrag", in: &seen)
            fragment.iceUsernameFragment = String(try attribute.requiredValue())
        case "ice-pwd":
            try once("a=ice-pwd", in: &seen)
            fragment.icePassword = String(try attribute.requiredValue())
        case "end-of-candidates":
            try attribute.requireNoValue()
            fragment.endOfCandidates = true
        case "candidate", "mid":
            throw .invalid(field: "a=\(attribute.name)", problem: "belongs to an m= section (RFC 8840 section 9)")
        default:
            break
        }
    }

    private func once(_ field: String, in seen: inout Set<String>) throws(SDPParseError.Reason) {
        guard seen.insert(field).inserted else { throw .repeated(field) }
    }
}
