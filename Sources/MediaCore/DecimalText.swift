/// Numbers as text with a fixed number of decimals, as printf's `%W.Nf` writes them, for notes and
/// status lines.
public enum DecimalText {
    /// `value` rounded to `decimals` digits after the point (half away from zero), right-aligned in
    /// `width` characters: `fixed(3.14159, decimals: 1)` is "3.1", `fixed(2, decimals: 1, width: 5)`
    /// is "  2.0".
    public static func fixed(_ value: Double, decimals: Int, width: Int = 0) -> String {
        let text = digits(value, decimals: max(0, min(decimals, 9)))
        return text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    private static func digits(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : value < 0 ? "-inf" : "inf" }
        var divisor: UInt64 = 1
        for _ in 0..<decimals { divisor *= 10 }
        let scaled = (value.magnitude * Double(divisor)).rounded()
        // Past 2^53 a Double holds no fraction to show.
        guard scaled < 9_007_199_254_740_992 else { return String(value) }
        let units = UInt64(scaled)
        var text = units == 0 || value > 0 ? "" : "-"
        text += String(units / divisor)
        if decimals > 0 {
            let fraction = String(units % divisor)
            text += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
        }
        return text
    }
}
