/// The target rate as packet loss allows it, capped by the delay-based estimate and REMB:
/// libwebrtc's loss-based controller v1 (goog_cc/send_side_bandwidth_estimation.cc).
///
/// Loss is taken in reports of at least 20 packets (TWCC counts, or RR deltas). Below 2 % loss
/// the rate grows 8 % a second, measured from the lowest rate of the last second (so a report
/// after a quiet spell raises it at once); between 2 and 10 % it holds, since such loss is
/// usually not caused by our rate (radio, a shared link); above 10 % it drops to
/// rate × (1 − loss/2), at most once per report and per 300 ms + RTT. During the first 2 s after
/// the first report, while nothing is lost, it simply follows the delay-based estimate, so that
/// start-up probing takes effect at once.
///
/// One departure from v1: a cut that did not lower the loss is taken back. On a path that loses
/// a few percent whatever the rate (radio, a lossy relay), one report of a burst (an outage of
/// half a second reports most of its packets lost) cuts the rate, and v1 would then hold the
/// lower rate for as long as the path loses more than 2 %. When the reports after a cut lose no
/// more than the path lost before it (`steadyLossFraction`, plus a point), the loss is not ours:
/// the rate grows back as with low loss, up to the rate before the cut and no further.
/// libwebrtc's loss-based v2 reaches the same end by estimating the path's inherent loss.
struct LossBasedBandwidthEstimator: Sendable {
    static let increaseIntervalNs: Int64 = 1_000_000_000
    static let decreaseIntervalNs: Int64 = 300_000_000
    static let startPhaseNs: Int64 = 2_000_000_000
    static let minPacketsPerReport = 20
    static let lowLossFraction = 0.02
    static let highLossFraction = 0.1
    /// Loss reports older than 1.2 × libwebrtc's `kMaxRtcpFeedbackInterval` (5 s) stop increases.
    static let maxReportAgeNs: Int64 = 6_000_000_000
    static let increaseFloorBps = 1000.0
    /// The weight of each report at most `highLossFraction` in `steadyLossFraction`.
    static let steadyLossWeight = 0.25
    /// How much more than before a cut the loss after it may be, and the cut still be taken back.
    static let recoveryLossMargin = 0.01

    private(set) var targetBps: Double
    let minBitrateBps: Double
    let maxBitrateBps: Double
    private(set) var delayBasedLimitBps = Double.infinity
    private(set) var receiverLimitBps = Double.infinity
    /// The last reported loss as libwebrtc keeps it, in 1/256.
    private(set) var fractionLostQ8 = 0
    var rttNs: Int64 = 0

    private var lostSinceReport = 0
    private var expectedSinceReport = 0
    private var firstReportNs: Int64?
    private var lastLossReportNs: Int64?
    private var lastDecreaseNs: Int64?
    private var hasDecreasedSinceLastReport = false
    /// (time, rate) pairs, rising: the minimum rate over the last second is the first one.
    private var minHistory: [(timeNs: Int64, bitrateBps: Double)] = []
    /// The loss of recent reports at most `highLossFraction`, a moving average: what the path
    /// loses when no burst is under way.
    private(set) var steadyLossFraction: Double?
    /// After a cut: the rate before it and the steady loss then; the rate may grow back to it
    /// while the loss stays within `recoveryLossMargin` of that.
    private(set) var recovery: (ceilingBps: Double, lossBefore: Double)?

    init(startBitrateBps: Double, minBitrateBps: Double, maxBitrateBps: Double) {
        self.minBitrateBps = minBitrateBps
        self.maxBitrateBps = maxBitrateBps
        targetBps = min(max(startBitrateBps, minBitrateBps), maxBitrateBps)
    }

    var lossFraction: Double { Double(fractionLostQ8) / 256 }

    var upperLimitBps: Double { min(delayBasedLimitBps, receiverLimitBps, maxBitrateBps) }

    mutating func updatePacketsLost(lost: Int, expected: Int, nowNs: Int64) {
        if firstReportNs == nil {
            firstReportNs = nowNs
        }
        guard expected > 0 else { return }
        lostSinceReport += lost
        expectedSinceReport += expected
        guard expectedSinceReport >= Self.minPacketsPerReport else { return }
        hasDecreasedSinceLastReport = false
        fractionLostQ8 = min(max(lostSinceReport, 0) * 256 / expectedSinceReport, 255)
        if lossFraction <= Self.highLossFraction {
            steadyLossFraction = steadyLossFraction.map { $0 + (lossFraction - $0) * Self.steadyLossWeight } ?? lossFraction
        }
        lostSinceReport = 0
        expectedSinceReport = 0
        lastLossReportNs = nowNs
        updateEstimate(nowNs: nowNs)
    }

    /// Sets the delay-based cap (`.infinity` for none) and applies it.
    mutating func setDelayBasedLimit(_ bitrateBps: Double) {
        delayBasedLimitBps = bitrateBps
        applyLimits()
    }

    /// Sets the receiver's cap (REMB; `.infinity` for none) and applies it.
    mutating func setReceiverLimit(_ bitrateBps: Double) {
        receiverLimitBps = bitrateBps
        applyLimits()
    }

    /// Jumps to a probe's result, forgetting the slower history.
    mutating func setSendBitrate(_ bitrateBps: Double) {
        delayBasedLimitBps = .infinity
        setTarget(bitrateBps)
        minHistory.removeAll(keepingCapacity: true)
        recovery = nil
    }

    mutating func updateEstimate(nowNs: Int64) {
        if fractionLostQ8 == 0 && isInStartPhase(nowNs: nowNs) {
            let followed = max(
                targetBps, delayBasedLimitBps.isFinite ? delayBasedLimitBps : 0,
                receiverLimitBps.isFinite ? receiverLimitBps : 0)
            if followed != targetBps {
                minHistory.removeAll(keepingCapacity: true)
                minHistory.append((nowNs, targetBps))
                setTarget(followed)
                return
            }
        }
        updateMinHistory(nowNs: nowNs)
        guard let lastLossReportNs, nowNs - lastLossReportNs < Self.maxReportAgeNs else {
            applyLimits()
            return
        }
        let loss = lossFraction
        let recovering = recovery.map { loss <= $0.lossBefore + Self.recoveryLossMargin } ?? false
        if loss <= Self.lowLossFraction || recovering {
            let floorBps = minHistory.first?.bitrateBps ?? targetBps
            var increasedBps = (floorBps * 1.08).rounded() + Self.increaseFloorBps
            if loss > Self.lowLossFraction, let recovery { increasedBps = min(increasedBps, max(recovery.ceilingBps, targetBps)) }
            setTarget(increasedBps)
            if let recovery, targetBps >= recovery.ceilingBps { self.recovery = nil }
            return
        }
        if loss > Self.highLossFraction && !hasDecreasedSinceLastReport
            && (lastDecreaseNs.map { nowNs - $0 >= Self.decreaseIntervalNs + rttNs } ?? true)
        {
            lastDecreaseNs = nowNs
            hasDecreasedSinceLastReport = true
            if let steadyLossFraction {
                // Successive cuts can all be taken back, to the rate before the first.
                recovery = (max(recovery?.ceilingBps ?? 0, targetBps), recovery?.lossBefore ?? steadyLossFraction)
            }
            setTarget(targetBps * Double(512 - fractionLostQ8) / 512)
            return
        }
        applyLimits()
    }

    private func isInStartPhase(nowNs: Int64) -> Bool {
        firstReportNs.map { nowNs - $0 < Self.startPhaseNs } ?? true
    }

    private mutating func updateMinHistory(nowNs: Int64) {
        // The +1 ms lets the rate rise when the oldest point is just under a second old.
        while let first = minHistory.first, nowNs - first.timeNs + 1_000_000 > Self.increaseIntervalNs {
            minHistory.removeFirst()
        }
        while let last = minHistory.last, targetBps <= last.bitrateBps {
            minHistory.removeLast()
        }
        minHistory.append((nowNs, targetBps))
    }

    private mutating func applyLimits() {
        setTarget(targetBps)
    }

    private mutating func setTarget(_ bitrateBps: Double) {
        targetBps = max(min(bitrateBps, upperLimitBps), minBitrateBps)
    }
}
