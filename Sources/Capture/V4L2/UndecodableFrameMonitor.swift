/// Watches for camera frames that arrive but cannot be converted (corrupt MJPEG, mostly), so
/// that each burst of them is reported once with its length, and a camera none of whose frames
/// convert within its first seconds fails with a reason instead of streaming nothing.
/// Pure: the capture thread feeds it results and times.
struct UndecodableFrameMonitor {
    enum Verdict: Equatable {
        case keepGoing
        /// No frame has converted since the start, `count` frames failed, and time is up.
        case fail(count: Int)
    }

    private let startNs: Int64
    private let deadlineNs: Int64
    private var anyConverted = false
    private var failedSinceStart = 0
    /// Failures in the current run of them.
    private(set) var burst = 0

    init(startNs: Int64, timeoutMs: Int) {
        self.startNs = startNs
        deadlineNs = startNs + Int64(timeoutMs) * 1_000_000
    }

    /// A frame failed to convert at `nowNs`.
    mutating func failed(nowNs: Int64) -> Verdict {
        burst += 1
        failedSinceStart += 1
        return !anyConverted && nowNs >= deadlineNs ? .fail(count: failedSinceStart) : .keepGoing
    }

    /// A frame converted; returns the length of the burst it ends, for one warning, or nil.
    mutating func converted() -> Int? {
        anyConverted = true
        return endBurst()
    }

    /// Capture stopped; returns the length of a burst still running, or nil.
    mutating func endBurst() -> Int? {
        defer { burst = 0 }
        return burst > 0 ? burst : nil
    }
}
