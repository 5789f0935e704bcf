/// Resource ids are 128 random bits in hex: whoever knows one may DELETE that session, so it must
/// not be guessable from another viewer's (RFC 9725 §4.3 lets the server pick the URL).
enum WHEPResourceID {
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return hex(generator.next()) + hex(generator.next())
    }

    private static func hex(_ value: UInt64) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }

    /// A well-formed id, before any lookup: 32 lowercase hex digits.
    static func isWellFormed(_ id: Substring) -> Bool {
        id.utf8.count == 32 && id.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
