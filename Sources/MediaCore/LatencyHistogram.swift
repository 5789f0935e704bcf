import Histogram

/// Durations (encode times, capture-to-wire latency, pacer queueing, RTT) in an HdrHistogram:
/// microsecond resolution, two significant digits (every percentile within 1 % of the truth),
/// up to ten minutes. Recording never allocates.
public struct LatencyHistogram: Sendable {
    private static let highestMicroseconds: UInt64 = 600_000_000
    private var histogram = Histogram<UInt64>(
        highestTrackableValue: LatencyHistogram.highestMicroseconds, numberOfSignificantValueDigits: .two)

    public init() {}

    public var count: UInt64 { histogram.totalCount }

    public mutating func record(nanoseconds: Int64) {
        let micros = UInt64(clamping: max(0, nanoseconds / 1000))
        _ = histogram.record(min(micros, Self.highestMicroseconds))
    }

    /// The value at percentile `p` (0...100) in milliseconds; nil before anything is recorded.
    public func percentileMs(_ p: Double) -> Double? {
        guard count > 0 else { return nil }
        return Double(min(histogram.valueAtPercentile(p), histogram.maxRecorded)) / 1000
    }

    public var maxMs: Double { count > 0 ? Double(histogram.maxRecorded) / 1000 : 0 }
}
