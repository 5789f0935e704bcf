import FoundationEssentials
import Glibc
import MediaCore

/// Whether a UDP port on this machine has a socket bound to it, read from the kernel's
/// `/proc/net/udp` and `/proc/net/udp6` tables (Linux). Used to wait until a receiver that was
/// just started is listening before sending to it.
public enum LocalUDPPort {
    public static func isBound(_ port: UInt16) -> Bool {
        let hex = String(port, radix: 16, uppercase: true)
        let needle = ":" + String(repeating: "0", count: 4 - hex.count) + hex
        for table in ["/proc/net/udp", "/proc/net/udp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            // Each row after the heading: "sl local_address rem_address ...", local_address as HEXADDR:HEXPORT.
            for row in text.split(separator: "\n").dropFirst() {
                let columns = row.split(separator: " ")
                if columns.count > 1, columns[1].hasSuffix(needle) { return true }
            }
        }
        return false
    }

    /// Waits until `port` is bound or `timeoutSeconds` pass; true if it is bound.
    public static func waitUntilBound(_ port: UInt16, timeoutSeconds: Double, while condition: () -> Bool = { true }) -> Bool {
        let deadlineNs = MonotonicClock.nowNs() + Int64(timeoutSeconds * 1e9)
        while MonotonicClock.nowNs() < deadlineNs && condition() {
            if isBound(port) { return true }
            usleep(20_000)
        }
        return isBound(port)
    }
}
