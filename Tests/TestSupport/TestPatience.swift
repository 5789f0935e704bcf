import Foundation
import MediaCore

/// How long a test waits for something that should happen (a packet, a line, a file, a process
/// ending) before it gives up: a bound for a hang, never a claim about speed. The suite runs its
/// tests in parallel, so on a slow or busy machine a first frame may take many seconds; the bound
/// is generous and only a broken build ever reaches it. `CAMRTP_TEST_PATIENCE` (seconds) sets it.
public enum TestPatience {
    public static let seconds: Double = {
        if let text = ProcessInfo.processInfo.environment["CAMRTP_TEST_PATIENCE"], let value = Double(text), value > 0 {
            return value
        }
        return 120
    }()

    /// The same bound for calls that take milliseconds (`poll`).
    public static var milliseconds: Int32 { Int32(seconds * 1_000) }

    /// The moment to give up, counted from now.
    public static var deadline: Date { Date().addingTimeInterval(seconds) }

    /// The moment to give up on the monotonic clock, counted from now.
    public static var deadlineNs: Int64 { MonotonicClock.nowNs() + Int64(seconds * 1e9) }
}
