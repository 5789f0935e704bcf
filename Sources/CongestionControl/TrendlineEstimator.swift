/// The slope of the one-way delay over the last packet groups: libwebrtc's trendline filter
/// (goog_cc/trendline_estimator.cc).
///
/// Each group adds its delay variation (arrival spacing minus send spacing) to an accumulated
/// delay, which is smoothed exponentially; a least-squares line through the last `windowSize`
/// smoothed points (against arrival time) gives the trend. A trend near 0 means the path keeps
/// up; 0.1 means the queue grows by 10 % of the elapsed time, i.e. we send ~10 % too much.
struct TrendlineEstimator: Sendable {
    static let defaultWindowSize = 20
    static let defaultSmoothing = 0.9
    /// libwebrtc's `kDeltaCounterMax`.
    static let maxDeltaCount = 1000

    let windowSize: Int
    let smoothing: Double

    /// Groups seen so far (capped), which the detector uses to trust a young trend less.
    private(set) var deltaCount = 0
    private(set) var trend = 0.0
    private var firstArrivalMs: Double?
    private var accumulatedDelayMs = 0.0
    private var smoothedDelayMs = 0.0
    /// (arrival time since the first group, smoothed delay), oldest first; a ring once full.
    private var history: [(x: Double, y: Double)] = []
    private var historyStart = 0

    init(windowSize: Int = Self.defaultWindowSize, smoothing: Double = Self.defaultSmoothing) {
        precondition(windowSize >= 2, "a line needs two points")
        self.windowSize = windowSize
        self.smoothing = smoothing
        history.reserveCapacity(windowSize)
    }

    /// Adds one group's deltas (milliseconds) and returns the updated trend.
    mutating func update(arrivalDeltaMs: Double, sendDeltaMs: Double, arrivalTimeMs: Double) -> Double {
        deltaCount = min(deltaCount + 1, Self.maxDeltaCount)
        let firstArrivalMs = self.firstArrivalMs ?? arrivalTimeMs
        self.firstArrivalMs = firstArrivalMs
        accumulatedDelayMs += arrivalDeltaMs - sendDeltaMs
        smoothedDelayMs = smoothing * smoothedDelayMs + (1 - smoothing) * accumulatedDelayMs
        let point = (x: arrivalTimeMs - firstArrivalMs, y: smoothedDelayMs)
        if history.count < windowSize {
            history.append(point)
        } else {
            history[historyStart] = point
            historyStart = (historyStart + 1) % windowSize
        }
        if history.count == windowSize, let slope = Self.linearFitSlope(history) {
            trend = slope
        }
        return trend
    }

    /// The least-squares slope through `points`, or nil when they share one x.
    static func linearFitSlope(_ points: [(x: Double, y: Double)]) -> Double? {
        let count = Double(points.count)
        var sumX = 0.0
        var sumY = 0.0
        for point in points {
            sumX += point.x
            sumY += point.y
        }
        let averageX = sumX / count
        let averageY = sumY / count
        var numerator = 0.0
        var denominator = 0.0
        for point in points {
            numerator += (point.x - averageX) * (point.y - averageY)
            denominator += (point.x - averageX) * (point.x - averageX)
        }
        return denominator == 0 ? nil : numerator / denominator
    }
}
