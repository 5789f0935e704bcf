/// Compares the delay trend with an adaptive threshold: libwebrtc's detector in
/// goog_cc/trendline_estimator.cc.
///
/// The trend is scaled by the number of groups seen (up to 60) and a gain of 4 ("modified
/// trend", in ms). Overuse needs the modified trend above the threshold for more than 10 ms and
/// at least two groups, with the trend not falling; below minus the threshold is underuse. The
/// threshold follows |modified trend| (up with k_up 0.0087/ms, down with k_down 0.039/ms, at
/// most 100 ms of time per step), so that a trend which is only noise (a competing TCP flow, a
/// jittery link) stops triggering; spikes more than 15 ms above it do not move it, and it stays
/// in [6, 600] ms.
struct OveruseDetector: Sendable {
    static let thresholdGain = 4.0
    static let initialThresholdMs = 12.5
    static let thresholdIncreaseRate = 0.0087
    static let thresholdDecreaseRate = 0.039
    static let thresholdRangeMs = 6.0...600.0
    static let maxAdaptOffsetMs = 15.0
    static let overusingTimeThresholdMs = 10.0
    static let minDeltaCount = 60
    static let maxThresholdUpdateIntervalMs = 100.0

    private(set) var state = BandwidthUsage.normal
    private(set) var thresholdMs = Self.initialThresholdMs
    private(set) var modifiedTrend = 0.0
    private var timeOverusingMs: Double?
    private var overuseCount = 0
    private var previousTrend = 0.0
    private var lastThresholdUpdateMs: Double?

    /// Classifies `trend` after a group that came `sendDeltaMs` after the one before.
    @discardableResult
    mutating func detect(trend: Double, deltaCount: Int, sendDeltaMs: Double, nowMs: Double) -> BandwidthUsage {
        guard deltaCount >= 2 else {
            state = .normal
            return state
        }
        modifiedTrend = Double(min(deltaCount, Self.minDeltaCount)) * trend * Self.thresholdGain
        if modifiedTrend > thresholdMs {
            // Assume we have been overusing for half the time since the previous group.
            let overusingMs = timeOverusingMs.map { $0 + sendDeltaMs } ?? sendDeltaMs / 2
            timeOverusingMs = overusingMs
            overuseCount += 1
            if overusingMs > Self.overusingTimeThresholdMs && overuseCount > 1 && trend >= previousTrend {
                timeOverusingMs = 0
                overuseCount = 0
                state = .overusing
            }
        } else if modifiedTrend < -thresholdMs {
            timeOverusingMs = nil
            overuseCount = 0
            state = .underusing
        } else {
            timeOverusingMs = nil
            overuseCount = 0
            state = .normal
        }
        previousTrend = trend
        updateThreshold(nowMs: nowMs)
        return state
    }

    private mutating func updateThreshold(nowMs: Double) {
        let lastUpdateMs = lastThresholdUpdateMs ?? nowMs
        lastThresholdUpdateMs = nowMs
        let magnitude = abs(modifiedTrend)
        if magnitude > thresholdMs + Self.maxAdaptOffsetMs {
            return  // A spike (a sudden capacity drop): do not learn it as noise.
        }
        let rate = magnitude < thresholdMs ? Self.thresholdDecreaseRate : Self.thresholdIncreaseRate
        let elapsedMs = min(nowMs - lastUpdateMs, Self.maxThresholdUpdateIntervalMs)
        thresholdMs += rate * (magnitude - thresholdMs) * elapsedMs
        thresholdMs = min(max(thresholdMs, Self.thresholdRangeMs.lowerBound), Self.thresholdRangeMs.upperBound)
    }
}
