/// The delay-based rate: additive-increase, multiplicative-decrease driven by the overuse
/// detector, as libwebrtc's `AimdRateControl` (remote_bitrate_estimator/aimd_rate_control.cc).
///
/// States: *hold* (keep the rate), *increase*, *decrease*. Normal delay moves hold to increase;
/// overuse moves to decrease; underuse (queues draining) holds, so that we do not raise the
/// rate while the queue we built empties. On overuse the rate drops to 0.85 × the acknowledged
/// throughput (what the path demonstrably carried), then holds. Increase is multiplicative,
/// ×1.08 per second, while the link capacity is unknown or the throughput is well above it,
/// and additive, about one packet per response time (2 × (RTT + 100 ms)), near it. The link
/// capacity is what the link carried at the last overuses and, unlike libwebrtc, what a probe
/// that saturated the path received. The rate never runs ahead of 1.5 × the throughput + 10 kbit/s, so an
/// encoder that undershoots does not let the estimate grow unchecked.
struct AIMDRateControl: Sendable {
    static let backoffFactor = 0.85
    static let defaultRTTNs: Int64 = 200_000_000
    static let minMultiplicativeIncreaseBps = 1000.0
    static let minAdditiveIncreaseBpsPerSecond = 4000.0
    static let assumedFrameRate = 30.0
    static let assumedPacketSizeBytes = 1200.0
    /// libwebrtc approximates the detector's reaction time to 100 ms.
    static let detectorResponseNs: Int64 = 100_000_000

    private(set) var bitrateBps: Double
    private(set) var state = RateControlState.hold
    private(set) var linkCapacity = LinkCapacityEstimator()
    let minBitrateBps: Double
    var rttNs = Self.defaultRTTNs
    private var latestThroughputBps: Double
    private var lastChangeNs: Int64?

    init(startBitrateBps: Double, minBitrateBps: Double) {
        bitrateBps = max(startBitrateBps, minBitrateBps)
        latestThroughputBps = bitrateBps
        self.minBitrateBps = minBitrateBps
    }

    /// Takes the capacity a saturating probe measured, so that AIMD increases additively from
    /// the probe's rate instead of overshooting by 8 % a second.
    mutating func onProbeCapacity(_ capacityBps: Double) {
        linkCapacity.onProbeRate(capacityBps)
    }

    /// Whether an overuse may lower the rate again: once per RTT (clamped to 10–200 ms), or at
    /// once if the throughput collapsed below half the rate.
    func isTimeToReduceFurther(nowNs: Int64, throughputBps: Double) -> Bool {
        let intervalNs = min(max(rttNs, 10_000_000), 200_000_000)
        if let lastChangeNs, nowNs - lastChangeNs < intervalNs {
            return throughputBps < 0.5 * bitrateBps
        }
        return true
    }

    /// Sets the rate outright: a probe result, or a halving before any throughput is known.
    mutating func setEstimate(_ newBitrateBps: Double, nowNs: Int64) {
        bitrateBps = max(newBitrateBps, minBitrateBps)
        lastChangeNs = nowNs
    }

    /// Steps the state machine with the detector's verdict and the acknowledged throughput.
    @discardableResult
    mutating func update(usage: BandwidthUsage, throughputBps: Double?, nowNs: Int64) -> Double {
        let throughput = throughputBps ?? latestThroughputBps
        if let throughputBps {
            latestThroughputBps = throughputBps
        }
        changeState(usage: usage, nowNs: nowNs)
        var newBitrateBps: Double?
        switch state {
        case .hold:
            break
        case .increase:
            if throughput > linkCapacity.upperBoundBps {
                linkCapacity.reset()
            }
            let increaseLimitBps = 1.5 * throughput + 10_000
            if bitrateBps < increaseLimitBps {
                let increaseBps =
                    linkCapacity.estimateBps == nil
                    ? multiplicativeIncrease(nowNs: nowNs) : additiveIncrease(nowNs: nowNs)
                newBitrateBps = min(bitrateBps + increaseBps, increaseLimitBps)
            }
            lastChangeNs = nowNs
        case .decrease:
            var decreasedBps = throughput * Self.backoffFactor
            if decreasedBps > bitrateBps, let capacityBps = linkCapacity.estimateBps {
                decreasedBps = Self.backoffFactor * capacityBps
            }
            // Never increase on overuse.
            if decreasedBps < bitrateBps {
                newBitrateBps = decreasedBps
            }
            if throughput < linkCapacity.lowerBoundBps {
                // Far below what the link carried before: the old capacity no longer holds.
                linkCapacity.reset()
            }
            linkCapacity.onOveruseDetected(throughputBps: throughput)
            state = .hold  // Until the queue we built has drained.
            lastChangeNs = nowNs
        }
        bitrateBps = max(newBitrateBps ?? bitrateBps, minBitrateBps)
        return bitrateBps
    }

    private mutating func changeState(usage: BandwidthUsage, nowNs: Int64) {
        switch usage {
        case .normal:
            if state == .hold {
                lastChangeNs = nowNs
                state = .increase
            }
        case .overusing:
            state = .decrease
        case .underusing:
            state = .hold
        }
    }

    private func multiplicativeIncrease(nowNs: Int64) -> Double {
        let seconds = lastChangeNs.map { min(Double(nowNs - $0) / 1e9, 1) } ?? 1
        return max(bitrateBps * (Self.growthFactor(seconds: seconds) - 1), Self.minMultiplicativeIncreaseBps)
    }

    /// 1.08^seconds for seconds in [0, 1], as exp(seconds · ln 1.08) summed to 1e-15: the
    /// standard library has no `pow`, and this module needs no C library for one.
    static func growthFactor(seconds: Double) -> Double {
        let exponent = seconds * 0.076_961_041_136_128_3  // ln 1.08
        var term = 1.0
        var sum = 1.0
        for order in 1...10 {
            term *= exponent / Double(order)
            sum += term
        }
        return sum
    }

    private func additiveIncrease(nowNs: Int64) -> Double {
        guard let lastChangeNs else { return 0 }
        return nearMaxIncreaseBpsPerSecond * Double(nowNs - lastChangeNs) / 1e9
    }

    /// About one average packet per response time: the frame at this rate split into packets
    /// of at most 1200 bytes.
    var nearMaxIncreaseBpsPerSecond: Double {
        let frameSizeBytes = bitrateBps / 8 / Self.assumedFrameRate
        let packetsPerFrame = max((frameSizeBytes / Self.assumedPacketSizeBytes).rounded(.up), 1)
        let averagePacketBits = frameSizeBytes / packetsPerFrame * 8
        let responseSeconds = 2 * Double(rttNs + Self.detectorResponseNs) / 1e9
        return max(Self.minAdditiveIncreaseBpsPerSecond, averagePacketBits / responseSeconds)
    }
}
