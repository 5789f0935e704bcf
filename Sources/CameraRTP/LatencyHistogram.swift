/// A log-linear histogram of durations in microseconds, in the manner of HdrHistogram: values
/// below 128 µs are exact, larger ones land in one of 64 buckets per power of two, so every
/// percentile is within 1.6 % of the truth. Recording never allocates.
public struct LatencyHistogram: Sendable {
    private static let subBucketBits = 6
    private static let subBuckets = 1 << subBucketBits
    private var counts = [UInt64](repeating: 0, count: 40 * LatencyHistogram.subBuckets)
    public private(set) var count: UInt64 = 0
    public private(set) var maxMicroseconds: Int64 = 0

    public init() {}

    public mutating func record(nanoseconds: Int64) {
        let micros = max(0, nanoseconds / 1000)
        counts[Self.bucket(for: micros)] += 1
        count += 1
        maxMicroseconds = max(maxMicroseconds, micros)
    }

    /// The value at percentile `p` (0...100) in milliseconds: the top of its bucket, capped at
    /// the largest value seen. Nil before anything is recorded.
    public func percentileMs(_ p: Double) -> Double? {
        guard count > 0 else { return nil }
        let rank = max(1, UInt64((p / 100 * Double(count)).rounded(.up)))
        var seen: UInt64 = 0
        for (index, bucketCount) in counts.enumerated() where bucketCount > 0 {
            seen += bucketCount
            if seen >= rank { return Double(min(Self.upperBound(of: index), maxMicroseconds)) / 1000 }
        }
        return Double(maxMicroseconds) / 1000
    }

    public var maxMs: Double { Double(maxMicroseconds) / 1000 }

    private static func bucket(for micros: Int64) -> Int {
        let magnitude = max(0, (Int64.bitWidth - micros.leadingZeroBitCount) - (subBucketBits + 1))
        let shifted = Int(micros >> magnitude)
        return min(magnitude * subBuckets + shifted, 40 * subBuckets - 1)
    }

    private static func upperBound(of bucket: Int) -> Int64 {
        let magnitude = max(0, bucket / subBuckets - 1)
        let shifted = bucket - magnitude * subBuckets
        return (Int64(shifted + 1) << magnitude) - 1
    }
}
