import DequeModule

/// The highest loss fraction reported over the last `windowNs` (libwebrtc's FEC takes the
/// maximum of ten seconds, `kMaxFilter`): protection set from the loss of one lucky second would
/// drop away just before the next burst. One sample per `sampleIntervalNs` at most, so the
/// window holds twenty.
struct RecentLoss {
    static let windowNs: Int64 = 10_000_000_000
    static let sampleIntervalNs: Int64 = 500_000_000

    private var samples = Deque<(timeNs: Int64, lossFraction: Double)>()

    init() {
        samples.reserveCapacity(Int(Self.windowNs / Self.sampleIntervalNs) + 1)
    }

    mutating func record(_ lossFraction: Double, atNs nowNs: Int64) {
        while let oldest = samples.first, nowNs - oldest.timeNs > Self.windowNs { samples.removeFirst() }
        if let last = samples.last, nowNs - last.timeNs < Self.sampleIntervalNs {
            samples[samples.count - 1].lossFraction = max(last.lossFraction, lossFraction)
        } else {
            samples.append((nowNs, lossFraction))
        }
    }

    /// Read at every controller update, so without building an array.
    var maximum: Double { samples.reduce(0) { max($0, $1.lossFraction) } }
}
