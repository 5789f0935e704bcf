/// The rate of bytes sent over the last second, in ten 100 ms buckets: O(1) and allocation-free
/// per packet.
struct SendRateWindow: Sendable {
    static let bucketNs: Int64 = 100_000_000
    static let bucketCount = 10

    private var buckets = [Int](repeating: 0, count: Self.bucketCount)
    private var currentBucket: Int64 = 0

    mutating func add(sizeBytes: Int, nowNs: Int64) {
        advance(to: nowNs)
        buckets[Self.index(currentBucket)] += sizeBytes
    }

    mutating func rateBps(nowNs: Int64) -> Double {
        advance(to: nowNs)
        let windowSeconds = Double(Self.bucketNs) * Double(Self.bucketCount) / 1e9
        return Double(buckets.reduce(0, +)) * 8 / windowSeconds
    }

    private mutating func advance(to nowNs: Int64) {
        let bucket = nowNs / Self.bucketNs
        guard bucket > currentBucket else { return }
        let stale = min(bucket - currentBucket, Int64(Self.bucketCount))
        for step in 1...stale {
            buckets[Self.index(currentBucket + step)] = 0
        }
        currentBucket = bucket
    }

    private static func index(_ bucket: Int64) -> Int {
        let count = Int64(bucketCount)
        return Int((bucket % count + count) % count)
    }
}
