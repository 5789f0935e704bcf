/// The parts of an http(s) URL that WHIP needs, and RFC 3986 section 5.2's resolution of a
/// `Location` against the endpoint's URL (it may be absolute, `//host/...`, `/path` or relative).
public struct ResourceURL: Sendable, Hashable, CustomStringConvertible {
    public let scheme: String
    /// `host[:port]`, userinfo included if any.
    public let authority: String
    /// Starts with "/".
    public let path: String
    /// Without the "?"; nil when absent.
    public let query: String?

    /// Reads an absolute `http://` or `https://` URL; a fragment is dropped.
    public init?(parsing text: String) {
        let withoutFragment = text.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? text
        guard let colon = withoutFragment.firstIndex(of: ":") else { return nil }
        let scheme = withoutFragment[..<colon].lowercased()
        let afterColon = withoutFragment[withoutFragment.index(after: colon)...]
        guard scheme == "http" || scheme == "https", afterColon.hasPrefix("//") else { return nil }
        let rest = afterColon.dropFirst(2)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = String(rest[..<authorityEnd])
        guard !authority.isEmpty, !authority.contains(where: { $0 == " " || $0 == "\t" }) else { return nil }
        let (path, query) = Self.splitQuery(rest[authorityEnd...])
        self.init(scheme: scheme, authority: authority, path: path.isEmpty ? "/" : path, query: query)
    }

    private init(scheme: String, authority: String, path: String, query: String?) {
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.query = query
    }

    public var description: String { "\(scheme)://\(authority)\(path)" + (query.map { "?\($0)" } ?? "") }

    /// `reference` resolved against this URL (RFC 3986 section 5.2.2), or nil when it is no
    /// usable http(s) reference.
    public func resolving(_ reference: String) -> ResourceURL? {
        let reference = reference.trimmingBlanks
        guard !reference.isEmpty, !reference.contains(where: { $0 == " " || $0 == "\r" || $0 == "\n" }) else { return nil }
        if let colon = reference.firstIndex(of: ":"), !reference[..<colon].contains("/") { return ResourceURL(parsing: reference) }
        if reference.hasPrefix("//") { return ResourceURL(parsing: scheme + ":" + reference) }
        let withoutFragment = String(reference.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        let (referencePath, referenceQuery) = Self.splitQuery(Substring(withoutFragment))
        if referencePath.isEmpty {
            return ResourceURL(scheme: scheme, authority: authority, path: path, query: referenceQuery ?? query)
        }
        let merged = referencePath.hasPrefix("/") ? referencePath : String(path[...(path.lastIndex(of: "/") ?? path.startIndex)]) + referencePath
        return ResourceURL(scheme: scheme, authority: authority, path: Self.removingDotSegments(merged), query: referenceQuery)
    }

    private static func splitQuery(_ text: Substring) -> (path: String, query: String?) {
        guard let mark = text.firstIndex(of: "?") else { return (String(text), nil) }
        return (String(text[..<mark]), String(text[text.index(after: mark)...]))
    }

    /// RFC 3986 section 5.2.4, on whole segments.
    static func removingDotSegments(_ path: String) -> String {
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (index, segment) in segments.enumerated() {
            let last = index == segments.count - 1
            switch segment {
            case ".":
                if last { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if last { output.append("") }
            default:
                output.append(segment)
            }
        }
        return "/" + output.joined(separator: "/")
    }
}

extension String {
    var trimmingBlanks: String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}
