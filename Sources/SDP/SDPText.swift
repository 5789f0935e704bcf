/// Splitting and number reading for SDP values. They work on Unicode scalars, so a separator is
/// never merged into a grapheme with its neighbour, and they return nil rather than trap.
enum SDPText {
    static func isBlank(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "\t" }

    /// Tokens separated by runs of spaces or tabs (RFC 8866 asks for one space; peers vary).
    static func tokens(_ text: Substring) -> [Substring] {
        text.unicodeScalars.split(whereSeparator: isBlank).map(Substring.init)
    }

    /// The text before and after the first `separator`, or nil when there is none.
    static func split(_ text: Substring, at separator: Unicode.Scalar) -> (head: Substring, tail: Substring)? {
        let scalars = text.unicodeScalars
        guard let index = scalars.firstIndex(of: separator) else { return nil }
        return (Substring(scalars[..<index]), Substring(scalars[scalars.index(after: index)...]))
    }

    /// The first token and the rest after the blanks that follow it.
    static func firstToken(_ text: Substring) -> (token: Substring, rest: Substring) {
        let scalars = trimmingLeadingBlanks(text).unicodeScalars
        let end = scalars.firstIndex(where: isBlank) ?? scalars.endIndex
        return (Substring(scalars[..<end]), trimmingLeadingBlanks(Substring(scalars[end...])))
    }

    static func trimmingLeadingBlanks(_ text: Substring) -> Substring {
        let scalars = text.unicodeScalars
        return Substring(scalars[(scalars.firstIndex { !isBlank($0) } ?? scalars.endIndex)...])
    }

    static func trimmingBlanks(_ text: Substring) -> Substring {
        let scalars = trimmingLeadingBlanks(text).unicodeScalars
        guard let last = scalars.lastIndex(where: { !isBlank($0) }) else { return "" }
        return Substring(scalars[...last])
    }

    /// A decimal number of ASCII digits only (no sign, no blanks), nil when out of `T`'s range.
    static func unsigned<T: FixedWidthInteger & UnsignedInteger>(_ text: Substring, as type: T.Type) -> T? {
        guard !text.isEmpty, text.utf8.count <= 20, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return T(text, radix: 10)
    }

    /// `unsigned`, or an `invalid` reason naming the field and what was expected.
    static func number<T: FixedWidthInteger & UnsignedInteger>(
        _ text: Substring, as type: T.Type, in range: ClosedRange<T>? = nil, field: String, what: String
    ) throws(SDPParseError.Reason) -> T {
        let range = range ?? T.min...T.max
        guard let value = unsigned(text, as: T.self), range.contains(value) else {
            throw .invalid(field: field, problem: "expected \(what) (\(range.lowerBound)…\(range.upperBound)), found \(quoted(text))")
        }
        return value
    }

    /// Exactly `count` tokens, else an `invalid` reason showing the expected form.
    static func tokens(_ text: Substring, count: Int, field: String, form: String) throws(SDPParseError.Reason) -> [Substring] {
        let parts = tokens(text)
        guard parts.count == count else { throw .invalid(field: field, problem: "expected \"\(form)\", found \(quoted(text))") }
        return parts
    }
}
