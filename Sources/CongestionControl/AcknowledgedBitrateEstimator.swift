/// The throughput the receiver acknowledged, from the sizes and receive times of the packets in
/// transport feedback: libwebrtc's `AcknowledgedBitrateEstimator` over its `BitrateEstimator`
/// (goog_cc/bitrate_estimator.cc).
///
/// Bytes are summed in windows of receive time (500 ms for the first sample, 150 ms after);
/// each window's rate is a sample for a scalar Bayesian filter whose sample variance grows with
/// the sample's distance from the estimate. So a single burst moves the estimate little while a
/// lasting change (a capacity drop) pulls it along within a few windows.
struct AcknowledgedBitrateEstimator: Sendable {
    static let initialWindowMs: Int64 = 500
    static let windowMs: Int64 = 150
    static let uncertaintyScale = 10.0
    static let initialVariance = 50.0
    /// Added to the variance per sample, so the filter keeps following.
    static let processNoise = 5.0

    private var sumBytes = 0
    private var currentWindowMs: Int64 = 0
    private var previousTimeMs: Int64?
    private var estimateKbps: Double?
    private var varianceKbps2 = Self.initialVariance

    /// The estimate in bit/s, once the first window has closed.
    var bitrateBps: Double? { estimateKbps.map { $0 * 1000 } }

    /// Adds one acknowledged packet; call in order of receive time.
    mutating func update(receiveTimeNs: Int64, sizeBytes: Int) {
        let windowMs = estimateKbps == nil ? Self.initialWindowMs : Self.windowMs
        guard let sampleKbps = updateWindow(nowMs: receiveTimeNs / 1_000_000, sizeBytes: sizeBytes, windowMs: windowMs)
        else {
            return
        }
        guard let estimate = estimateKbps else {
            estimateKbps = sampleKbps
            return
        }
        let sampleUncertainty = Self.uncertaintyScale * abs(estimate - sampleKbps) / estimate
        let sampleVariance = sampleUncertainty * sampleUncertainty
        // Predict with some added noise, then update with the sample.
        let predictedVariance = varianceKbps2 + Self.processNoise
        estimateKbps =
            (sampleVariance * estimate + predictedVariance * sampleKbps) / (sampleVariance + predictedVariance)
        varianceKbps2 = sampleVariance * predictedVariance / (sampleVariance + predictedVariance)
    }

    /// Returns a rate sample (kbit/s) when `nowMs` closes a window.
    private mutating func updateWindow(nowMs: Int64, sizeBytes: Int, windowMs: Int64) -> Double? {
        if let previousTimeMs, nowMs < previousTimeMs {
            // The receiver's clock went back: start over.
            self.previousTimeMs = nil
            sumBytes = 0
            currentWindowMs = 0
        }
        if let previousTimeMs {
            currentWindowMs += nowMs - previousTimeMs
            // Nothing arrived for a whole window: drop the stale bytes.
            if nowMs - previousTimeMs > windowMs {
                sumBytes = 0
                currentWindowMs %= windowMs
            }
        }
        previousTimeMs = nowMs
        var sampleKbps: Double?
        if currentWindowMs >= windowMs {
            sampleKbps = 8 * Double(sumBytes) / Double(windowMs)
            currentWindowMs -= windowMs
            sumBytes = 0
        }
        sumBytes += sizeBytes
        return sampleKbps
    }
}
