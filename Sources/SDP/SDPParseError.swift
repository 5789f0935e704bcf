/// Why an SDP text (or one attribute value) was refused, and on which line.
///
/// SDP arrives from the network (WHIP and WHEP bodies), so the parser reports every problem as
/// this value and never traps. Quoted input is cut short so a hostile line cannot flood a log.
public struct SDPParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The 1-based line number, or nil for a problem with the whole text or with a value
    /// parsed on its own (`Candidate(sdpValue:)`).
    public var lineNumber: Int?
    public var reason: Reason

    public init(lineNumber: Int?, reason: Reason) {
        self.lineNumber = lineNumber
        self.reason = reason
    }

    public enum Reason: Error, Sendable, Hashable, CustomStringConvertible {
        /// A size cap of `SDPParseLimits` was passed.
        case limitExceeded(what: String, limit: Int)
        /// Not `<letter>=<value>` (RFC 8866 section 5).
        case notAField
        /// A control character (NUL, a lone CR, ...) inside a line.
        case controlCharacter
        /// The first line is not `v=0`.
        case missingVersion
        case unsupportedVersion(String)
        /// A field that belongs before the first `m=` line, such as `o=` or `t=`.
        case sessionFieldInMedia(String)
        /// A field or attribute that may appear only once at its level.
        case repeated(String)
        case missing(String)
        /// A field or attribute whose value does not follow its grammar.
        case invalid(field: String, problem: String)

        public var description: String {
            switch self {
            case .limitExceeded(let what, let limit): "\(what) exceeds the limit of \(limit)"
            case .notAField: "expected <letter>=<value>"
            case .controlCharacter: "contains a control character"
            case .missingVersion: "an SDP starts with v=0"
            case .unsupportedVersion(let version): "unsupported version v=\(quoted(version))"
            case .sessionFieldInMedia(let field): "\(field) belongs before the first m= line"
            case .repeated(let field): "\(field) appears more than once"
            case .missing(let field): "no \(field) line"
            case .invalid(let field, let problem): "\(field): \(problem)"
            }
        }
    }

    public var description: String {
        if let lineNumber { "SDP line \(lineNumber): \(reason)" } else { "SDP: \(reason)" }
    }
}

/// Input quoted in an error: between quotes, at most 40 characters of it.
func quoted(_ text: some StringProtocol) -> String {
    let limit = 40
    guard text.count > limit else { return "\"\(text)\"" }
    return "\"\(text.prefix(limit))…\""
}

/// Caps that bound what a hostile body can make the parser allocate: the work and memory are
/// linear in the text, which is capped, and the counts below are capped on top.
public struct SDPParseLimits: Sendable, Hashable {
    /// A browser's offer with audio, video, data and a dozen candidates is under 10 kB.
    public var maxTextBytes: Int
    public var maxLines: Int
    public var maxMediaSections: Int
    /// `a=candidate` lines in the whole description.
    public var maxCandidates: Int

    public init(maxTextBytes: Int = 131_072, maxLines: Int = 4_096, maxMediaSections: Int = 64, maxCandidates: Int = 256) {
        self.maxTextBytes = maxTextBytes
        self.maxLines = maxLines
        self.maxMediaSections = maxMediaSections
        self.maxCandidates = maxCandidates
    }

    public static let standard = SDPParseLimits()
}
