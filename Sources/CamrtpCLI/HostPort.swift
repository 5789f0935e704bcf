/// HOST:PORT as `--http` and `--metrics` take it: `[::1]:8080` for IPv6, port 0 for a free one.
package enum HostPort {
    package static func parse(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            return nil
        }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains(where: { $0 == "[" || $0 == "]" || $0 == " " }) else { return nil }
        return (host, port)
    }

    /// The host as it goes into a URL: IPv6 in brackets.
    package static func urlHost(_ host: String) -> String {
        host.contains(":") ? "[\(host)]" : host
    }
}
