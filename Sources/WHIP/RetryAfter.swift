import Glibc

/// `Retry-After` (RFC 9110 section 10.2.3): how long a 429 or 503 asks a client to wait,
///
///     Retry-After = HTTP-date / delay-seconds
///
/// with all three HTTP-date forms a recipient must accept (section 5.6.7): IMF-fixdate
/// (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37
/// GMT`) and asctime (`Sun Nov  6 08:49:37 1994`). A date is turned into seconds from `now`
/// (seconds since the epoch, injected). Anything else is nil: no wait was asked for.
public enum RetryAfter {
    /// A wait longer than this is taken as this: the server's clock or intent is off.
    public static let maximumSeconds: Double = 3600

    public static func seconds(_ field: String, now: Double) -> Double? {
        let value = Substring(field).trimmingCharacters(in: " \t")
        guard !value.isEmpty, value.utf8.count <= 64 else { return nil }
        if value.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            return Double(value).map { min($0, maximumSeconds) }
        }
        guard let date = httpDate(value, now: now) else { return nil }
        return min(max(0, date - now), maximumSeconds)
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Seconds since the epoch of an HTTP-date in any of its three forms.
    static func httpDate(_ text: Substring, now: Double) -> Double? {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "," }).map { $0.lowercased() }
        let day: Int?, month: Int?, year: Int?, time: String
        switch parts.count {
        case 6 where parts[5] == "gmt":  // IMF-fixdate: day, DD Mon YYYY HH:MM:SS GMT
            (day, month, year, time) = (Int(parts[1]), months.firstIndex(of: parts[2]), Int(parts[3]), parts[4])
        case 4 where parts[3] == "gmt":  // RFC 850: weekday, DD-Mon-YY HH:MM:SS GMT
            let date = parts[1].split(separator: "-")
            guard date.count == 3, date[2].count == 2, let twoDigits = Int(date[2]) else { return nil }
            (day, month, year, time) = (Int(date[0]), months.firstIndex(of: String(date[1])), fullYear(twoDigits, now: now), parts[2])
        case 5:  // asctime: Mon DD HH:MM:SS YYYY
            (day, month, year, time) = (Int(parts[2]), months.firstIndex(of: parts[1]), Int(parts[4]), parts[3])
        default:
            return nil
        }
        let clock = time.split(separator: ":").compactMap { Int($0) }
        guard let day, let month, let year, clock.count == 3, (1...31).contains(day), (1900...9999).contains(year),
            (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2])
        else { return nil }
        var broken = tm()
        broken.tm_year = Int32(year - 1900)
        broken.tm_mon = Int32(month)
        broken.tm_mday = Int32(day)
        broken.tm_hour = Int32(clock[0])
        broken.tm_min = Int32(clock[1])
        broken.tm_sec = Int32(clock[2])
        return Double(timegm(&broken))
    }
}

extension RetryAfter {
    /// RFC 9110 section 5.6.7: a two-digit year that would be more than 50 years ahead is the
    /// latest past year with those digits.
    static func fullYear(_ twoDigits: Int, now: Double) -> Int {
        var seconds = time_t(now)
        var broken = tm()
        gmtime_r(&seconds, &broken)
        let current = Int(broken.tm_year) + 1900
        var year = current - current % 100 + twoDigits
        if year > current + 50 { year -= 100 }
        return year
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> Substring {
        var text = self
        while let first = text.first, set.contains(first) { text.removeFirst() }
        while let last = text.last, set.contains(last) { text.removeLast() }
        return text
    }
}
