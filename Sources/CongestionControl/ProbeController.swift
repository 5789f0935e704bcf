/// Decides when to probe the path and at what rate: libwebrtc's `ProbeController`
/// (goog_cc/probe_controller.cc), with recovery probing after a large drop.
///
/// At start-up it asks for two clusters, at 3× and 6× the start rate; while a result comes back
/// above 70 % of the highest rate probed, it probes again at twice the result, so a link of a
/// few Mbit/s is found within a second instead of by 8 %-a-second growth. A result has a second
/// to come back.
///
/// When the estimate falls below 66 % of its peak over the last 5 s (a capacity drop, not the
/// AIMD sawtooth), it remembers the peak; from 5 s after the drop it probes every 5 s at 85 % of
/// that peak while the estimate stays below it, loss is low and the drop is under a minute old.
/// So capacity that comes back is found within seconds, where AIMD would need ten or more
/// (additive increase, then 8 % a second). libwebrtc sends that probe only once, within 5 s of
/// the drop, and only when the encoder leaves the link idle. Probes never exceed the configured
/// maximum or the REMB cap.
struct ProbeController: Sendable {
    enum State: Sendable, Hashable {
        case initial, waitingForResult, complete
    }

    static let firstProbeScale = 3.0
    static let secondProbeScale = 6.0
    static let furtherProbeScale = 2.0
    static let furtherProbeThreshold = 0.7
    static let minProbePackets = 5
    static let minProbeDurationNs: Int64 = 15_000_000
    static let maxWaitingForResultNs: Int64 = 1_000_000_000
    static let largeDropThreshold = 0.66
    static let peakWindowNs: Int64 = 5_000_000_000
    static let recoveryProbeFraction = 0.85
    /// A recovery probe is pointless when the estimate is already within its uncertainty.
    static let probeUncertainty = 0.05
    static let recoveryProbeIntervalNs: Int64 = 5_000_000_000
    static let recoveryWindowNs: Int64 = 60_000_000_000
    static let recoveryMaxLoss = 0.02

    private(set) var state = State.initial
    let startBitrateBps: Double
    let maxBitrateBps: Double
    var receiverLimitBps = Double.infinity
    private var estimatedBitrateBps: Double
    private var minBitrateToProbeFurtherBps: Double?
    private var lastProbeNs: Int64?
    private var nextClusterID = 1
    /// Recent estimates, for the peak a drop is measured against.
    private var recentEstimates: [(timeNs: Int64, bitrateBps: Double)] = []
    private var lastLargeDrop: (timeNs: Int64, peakBps: Double)?

    init(startBitrateBps: Double, maxBitrateBps: Double) {
        self.startBitrateBps = startBitrateBps
        self.maxBitrateBps = maxBitrateBps
        estimatedBitrateBps = startBitrateBps
    }

    /// The start-up clusters (once).
    mutating func start(nowNs: Int64) -> [ProbeCluster] {
        guard state == .initial else { return [] }
        return probe(
            at: [Self.firstProbeScale * startBitrateBps, Self.secondProbeScale * startBitrateBps],
            probeFurther: true, nowNs: nowNs)
    }

    /// Takes the controller's new target; probes further after a successful probe.
    mutating func setEstimatedBitrate(_ bitrateBps: Double, nowNs: Int64) -> [ProbeCluster] {
        estimatedBitrateBps = bitrateBps
        recentEstimates.removeAll { nowNs - $0.timeNs > Self.peakWindowNs }
        let peakBps = recentEstimates.map(\.bitrateBps).max() ?? bitrateBps
        // The first fall below the threshold starts the recovery clock; later lows of the same
        // drop do not restart it.
        if bitrateBps < Self.largeDropThreshold * peakBps, peakBps > lastLargeDrop?.peakBps ?? 0 {
            lastLargeDrop = (nowNs, peakBps)
        }
        recentEstimates.append((nowNs, bitrateBps))
        guard state == .waitingForResult, let threshold = minBitrateToProbeFurtherBps, bitrateBps > threshold else {
            return []
        }
        return probe(at: [Self.furtherProbeScale * bitrateBps], probeFurther: true, nowNs: nowNs)
    }

    /// Ends a wait that took too long, and sends recovery probes after a large drop while loss
    /// is low.
    mutating func process(nowNs: Int64, lossFraction: Double) -> [ProbeCluster] {
        if let lastProbeNs, nowNs - lastProbeNs > Self.maxWaitingForResultNs, state == .waitingForResult {
            state = .complete
            minBitrateToProbeFurtherBps = nil
        }
        guard state == .complete, let drop = lastLargeDrop else { return [] }
        let probeBps = min(Self.recoveryProbeFraction * drop.peakBps, probeCapBps)
        if nowNs - drop.timeNs > Self.recoveryWindowNs || estimatedBitrateBps >= (1 - Self.probeUncertainty) * probeBps
        {
            lastLargeDrop = nil  // Recovered, or the capacity is not coming back.
            return []
        }
        let sinceLastProbeNs = nowNs - max(lastProbeNs ?? drop.timeNs, drop.timeNs)
        guard lossFraction <= Self.recoveryMaxLoss, sinceLastProbeNs >= Self.recoveryProbeIntervalNs else { return [] }
        return probe(at: [probeBps], probeFurther: true, nowNs: nowNs)
    }

    private var probeCapBps: Double { min(maxBitrateBps, receiverLimitBps) }

    private mutating func probe(at bitrates: [Double], probeFurther: Bool, nowNs: Int64) -> [ProbeCluster] {
        var probeFurther = probeFurther
        var clusters: [ProbeCluster] = []
        for requestedBps in bitrates {
            var bitrateBps = requestedBps
            if bitrateBps >= probeCapBps {
                bitrateBps = probeCapBps
                probeFurther = false
            }
            clusters.append(
                ProbeCluster(
                    id: nextClusterID, bitrateBps: Int64(bitrateBps), minPackets: Self.minProbePackets,
                    minBytes: Int(bitrateBps * Double(Self.minProbeDurationNs) / 8e9), createdAtNs: nowNs))
            nextClusterID += 1
        }
        lastProbeNs = nowNs
        if probeFurther, let last = clusters.last {
            state = .waitingForResult
            minBitrateToProbeFurtherBps = Double(last.bitrateBps) * Self.furtherProbeThreshold
        } else {
            state = .complete
            minBitrateToProbeFurtherBps = nil
        }
        return clusters
    }
}
