/// What the link carried when it last overused, with its spread: libwebrtc's
/// `LinkCapacityEstimator` (goog_cc/link_capacity_estimator.cc).
///
/// AIMD rate control uses it to tell "near the capacity" (increase additively) from "far from
/// it" (increase multiplicatively). Samples are throughputs at the moments of overuse and the
/// receive rates of probes that saturated the path; the
/// estimate is their running average and the deviation a normalised variance (kbit/s), so the
/// bounds `estimate ± 3·sqrt(deviation·estimate)` widen with the rate.
struct LinkCapacityEstimator: Sendable {
    private var estimateKbps: Double?
    private var deviationKbps = 0.4

    var estimateBps: Double? { estimateKbps.map { $0 * 1000 } }

    var upperBoundBps: Double {
        guard let estimateKbps else { return .infinity }
        return (estimateKbps + 3 * deviationEstimateKbps(estimateKbps)) * 1000
    }

    var lowerBoundBps: Double {
        guard let estimateKbps else { return 0 }
        return max(0, estimateKbps - 3 * deviationEstimateKbps(estimateKbps)) * 1000
    }

    mutating func reset() {
        estimateKbps = nil
    }

    mutating func onOveruseDetected(throughputBps: Double) {
        update(sampleKbps: throughputBps / 1000, alpha: 0.05)
    }

    /// A saturating probe's receive rate: a direct measurement, so it weighs more.
    mutating func onProbeRate(_ bitrateBps: Double) {
        update(sampleKbps: bitrateBps / 1000, alpha: 0.5)
    }

    private mutating func update(sampleKbps: Double, alpha: Double) {
        let estimate = estimateKbps.map { (1 - alpha) * $0 + alpha * sampleKbps } ?? sampleKbps
        estimateKbps = estimate
        // Normalise the variance by the estimate so that it is comparable across rates.
        let normalisation = max(estimate, 1)
        let error = estimate - sampleKbps
        deviationKbps = (1 - alpha) * deviationKbps + alpha * error * error / normalisation
        deviationKbps = min(max(deviationKbps, 0.4), 2.5)
    }

    private func deviationEstimateKbps(_ estimateKbps: Double) -> Double {
        (deviationKbps * estimateKbps).squareRoot()
    }
}
