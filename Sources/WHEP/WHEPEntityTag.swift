/// The entity-tags of ICE sessions (RFC 9725 section 4.3: a unique strong entity-tag per ICE
/// session, sent in the 201 and in the 200 of each restart) and the `If-Match` a PATCH carries
/// (RFC 9110 section 13.1.1):
///
///     If-Match    = "*" / #entity-tag
///     entity-tag  = [ "W/" ] DQUOTE *etagc DQUOTE
///
/// `If-Match` compares strongly, so a weak tag never matches.
enum WHEPEntityTag {
    /// 64 random bits in hex, quoted: a tag tells one ICE session of a resource from the next.
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let text = String(generator.next() as UInt64, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - text.count) + text + "\""
    }

    /// A longer `If-Match` is refused unread.
    static let maximumFieldBytes = 1024

    enum Condition: Equatable {
        /// `*`: any current ICE session (an ICE restart sends this).
        case any
        /// Matches when one of the (quoted) tags is the current one.
        case tags([String])
        case malformed

        func matches(_ current: String) -> Bool {
            switch self {
            case .any: true
            case .tags(let tags): tags.contains(current)
            case .malformed: false
            }
        }
    }

    static func condition(_ field: String) -> Condition {
        guard field.utf8.count <= maximumFieldBytes else { return .malformed }
        let trimmed = Substring(field).trimmingSpaces
        if trimmed == "*" { return .any }
        var tags: [String] = []
        var rest = trimmed.utf8[...]
        while true {
            while let first = rest.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") || first == UInt8(ascii: ",") {
                rest = rest.dropFirst()
            }
            guard let first = rest.first else { break }
            let weak = first == UInt8(ascii: "W") && rest.dropFirst().first == UInt8(ascii: "/")
            if weak { rest = rest.dropFirst(2) }
            guard rest.first == UInt8(ascii: "\"") else { return .malformed }
            let body = rest.dropFirst()
            // etagc: %x21 / %x23-7E / obs-text
            guard let close = body.firstIndex(where: { $0 == UInt8(ascii: "\"") || $0 < 0x21 || $0 == 0x7F }),
                body[close] == UInt8(ascii: "\"")
            else { return .malformed }
            if !weak { tags.append("\"" + String(decoding: body[..<close], as: UTF8.self) + "\"") }
            rest = body[body.index(after: close)...]
            guard let next = rest.first(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) else { break }
            guard next == UInt8(ascii: ",") else { return .malformed }
        }
        return tags.isEmpty && !trimmed.contains("W/") ? .malformed : .tags(tags)
    }
}
