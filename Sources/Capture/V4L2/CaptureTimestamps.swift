/// Where a captured frame's `timestampNs` comes from.
public enum CaptureTimestampSource: String, Sendable, Codable {
    /// The driver's buffer timestamp (`V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC`): when the frame was
    /// taken, without the dequeue delay.
    case driver
    /// `CLOCK_MONOTONIC` read right after `VIDIOC_DQBUF`: the driver's clock is another one, or
    /// one of its timestamps failed the sanity check.
    case dequeueTime
}

/// Trusts driver timestamps until the first implausible one, then uses dequeue time for good,
/// as GStreamer's v4l2src does: some drivers stamp with a clock that is not monotonic, or
/// run about a second off.
struct CaptureTimestampValidator {
    /// Longer than this between capture and dequeue is not a delay but a wrong clock.
    let maxDelayNs: Int64
    private(set) var source: CaptureTimestampSource = .driver
    private(set) var fallbackReason: String?
    private var lastDriverNs: Int64?

    init(maxDelayNs: Int64) {
        self.maxDelayNs = maxDelayNs
    }

    /// The timestamp for a frame dequeued at `dequeueNs`. `driverNs` is nil when the buffer's
    /// timestamp is not on `CLOCK_MONOTONIC`.
    mutating func timestamp(driverNs: Int64?, dequeueNs: Int64) -> Int64 {
        guard source == .driver else { return dequeueNs }
        guard let driverNs else { return fallBack("driver timestamps are not on CLOCK_MONOTONIC", dequeueNs) }
        if driverNs > dequeueNs {
            return fallBack("driver timestamp is \(driverNs - dequeueNs) ns in the future", dequeueNs)
        }
        if let last = lastDriverNs, driverNs <= last {
            return fallBack("driver timestamp went backwards by \(last - driverNs) ns", dequeueNs)
        }
        if dequeueNs - driverNs > maxDelayNs {
            return fallBack("driver timestamp is \(dequeueNs - driverNs) ns old at dequeue", dequeueNs)
        }
        lastDriverNs = driverNs
        return driverNs
    }

    private mutating func fallBack(_ reason: String, _ dequeueNs: Int64) -> Int64 {
        source = .dequeueTime
        fallbackReason = reason
        return dequeueNs
    }
}
