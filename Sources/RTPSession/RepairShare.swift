/// The share of the last second's sent bytes that were repair (FEC and retransmissions),
/// which libwebrtc's `FecControllerDefault` takes from the estimate before the encoder gets the
/// rest, so that media and its repair together stay within what the path carries. Ten buckets
/// of 100 ms in a fixed ring: counting a packet allocates nothing.
struct RepairShare {
    static let bucketNs: Int64 = 100_000_000
    static let bucketCount = 10
    /// libwebrtc's `overhead_threshold_`: the encoder keeps at least half of the estimate.
    static let maximumShare = 0.5

    private var totalBytes = [Int](repeating: 0, count: Self.bucketCount)
    private var repairBytes = [Int](repeating: 0, count: Self.bucketCount)
    private var currentBucket: Int64?

    mutating func record(bytes: Int, isRepair: Bool, atNs nowNs: Int64) {
        let index = advance(to: nowNs)
        totalBytes[index] += bytes
        if isRepair { repairBytes[index] += bytes }
    }

    /// The repair share of the bytes sent in the second before `nowNs`, at most
    /// `maximumShare`.
    mutating func share(atNs nowNs: Int64) -> Double {
        _ = advance(to: nowNs)
        let total = totalBytes.reduce(0, +)
        guard total > 0 else { return 0 }
        return min(Self.maximumShare, Double(repairBytes.reduce(0, +)) / Double(total))
    }

    /// Empties the buckets that time has left behind and returns the index of `nowNs`'s.
    private mutating func advance(to nowNs: Int64) -> Int {
        let bucket = nowNs / Self.bucketNs
        if let current = currentBucket, bucket > current {
            for passed in (current + 1)...min(bucket, current + Int64(Self.bucketCount)) {
                let index = Int(passed % Int64(Self.bucketCount))
                totalBytes[index] = 0
                repairBytes[index] = 0
            }
        }
        if bucket > currentBucket ?? .min { currentBucket = bucket }
        return Int(max(bucket, 0) % Int64(Self.bucketCount))
    }
}
