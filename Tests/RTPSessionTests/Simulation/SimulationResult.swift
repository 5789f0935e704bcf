import CongestionControl
import MediaCore

/// What a simulated call produced: a sample every 100 ms, every delivered packet's delays, the
/// controller's trace, what the receiver played and the sender's statistics.
struct SimulationResult {
    struct Sample {
        var timeNs: Int64
        var targetBps: Int64
        var encoderBps: Int64
        var capacityBps: Int64
        /// Bytes the bottleneck delivered in the 100 ms before `timeNs`, as a rate.
        var deliveredBps: Int64
        /// Whether the session had paused the encoder for congestion.
        var isEncoderPaused: Bool
    }

    struct DeliveredPacket {
        var sendTimeNs: Int64
        /// A retransmission, padding or a keep-alive: a packet sent before.
        var isCopy: Bool
        /// Time waiting in the bottleneck's queue (before its own transmission).
        var queueDelayNs: Int64
        /// Time waiting in the pacer.
        var pacerDelayNs: Int64
    }

    static let sampleIntervalNs: Int64 = 100_000_000

    var samples: [Sample] = []
    var delivered: [DeliveredPacket] = []
    var traces: [BWETraceRecord] = []
    /// Every probe cluster the controller asked for.
    var probeClusters: [ProbeCluster] = []
    var droppedByQueue = 0
    var droppedAtRandom = 0
    var framesEncoded = 0
    /// Frames encoded early enough to play before the end.
    var framesPlayable = 0
    /// Frames the encoder dropped because the session said the network was congested.
    var framesSkipped = 0
    /// Frames the receiver played whole and decodable, and those it could not.
    var framesIntact = 0
    var framesBroken = 0
    /// For each intact frame, how much later than its place in the timeline it became complete.
    var frameDelaysNs: [Int64] = []
    var keyframes = 0
    var nacksSent = 0
    var plisSent = 0
    var packetsRecoveredByFEC = 0
    /// Keyframe requests the session passed to the encoder.
    var keyframeRequestsForwarded = 0
    /// Milliseconds in which the session said something was due and did nothing about it, which
    /// a real send loop would spend spinning.
    var spinningMs = 0
    /// Bytes of new media sent (not copies, not FEC).
    var mediaBytesSent = 0
    /// When each copy (retransmission, padding, keep-alive) left the sender.
    var copiesSentNs: [Int64] = []
    /// Copies of FEC packets, which a receiver would take for media.
    var fecCopiesSent = 0
    /// The session's last statistics.
    var statistics: SenderStatistics?

    /// Intact frames as a share of the frames encoded that could play before the end.
    var intactShare: Double { Double(min(framesIntact, framesPlayable)) / Double(max(framesPlayable, 1)) }

    /// Packets the bottleneck's queue dropped, as a share of all it was offered.
    var queueDropShare: Double {
        Double(droppedByQueue) / Double(max(delivered.count + droppedByQueue + droppedAtRandom, 1))
    }

    private func samples(from startSeconds: Double, to endSeconds: Double) -> [Sample] {
        samples.filter { Double($0.timeNs) / 1e9 > startSeconds && Double($0.timeNs) / 1e9 <= endSeconds }
    }

    /// The mean target over a window, as a fraction of the mean capacity.
    func targetShare(from startSeconds: Double, to endSeconds: Double) -> Double {
        let window = samples(from: startSeconds, to: endSeconds)
        let target = window.reduce(0.0) { $0 + Double($1.targetBps) }
        let capacity = window.reduce(0.0) { $0 + Double($1.capacityBps) }
        return target / capacity
    }

    /// Bytes delivered over a window as a fraction of what the link could carry.
    func utilisation(from startSeconds: Double, to endSeconds: Double) -> Double {
        let window = samples(from: startSeconds, to: endSeconds)
        let delivered = window.reduce(0.0) { $0 + Double($1.deliveredBps) }
        let capacity = window.reduce(0.0) { $0 + Double($1.capacityBps) }
        return delivered / capacity
    }

    func meanTargetBps(from startSeconds: Double, to endSeconds: Double) -> Double {
        let window = samples(from: startSeconds, to: endSeconds)
        return window.reduce(0.0) { $0 + Double($1.targetBps) } / Double(max(window.count, 1))
    }

    func minTargetBps(from startSeconds: Double, to endSeconds: Double) -> Int64 {
        samples(from: startSeconds, to: endSeconds).map(\.targetBps).min() ?? 0
    }

    func maxTargetBps(from startSeconds: Double, to endSeconds: Double) -> Int64 {
        samples(from: startSeconds, to: endSeconds).map(\.targetBps).max() ?? 0
    }

    /// How long after `startSeconds` the target entered `band` (a share of the capacity) for
    /// good, sampled every 100 ms up to `endSeconds`; nil if it was outside at the end.
    func secondsUntilTargetStays(within band: ClosedRange<Double>, from startSeconds: Double, to endSeconds: Double)
        -> Double?
    {
        let window = samples(from: startSeconds, to: endSeconds)
        let isInside = { (sample: Sample) in band.contains(Double(sample.targetBps) / Double(sample.capacityBps)) }
        guard let lastOutside = window.lastIndex(where: { !isInside($0) }) else { return 0 }
        guard lastOutside + 1 < window.count else { return nil }
        return Double(window[lastOutside].timeNs) / 1e9 - startSeconds
    }

    /// The `quantile` of the bottleneck queueing delay of packets sent in a window (ms).
    func queueDelayMs(quantile: Double, from startSeconds: Double, to endSeconds: Double) -> Double {
        Self.quantile(delays(from: startSeconds, to: endSeconds, \.queueDelayNs), quantile)
    }

    /// The `quantile` of the pacer's queueing delay of media packets sent in a window (ms).
    func pacerDelayMs(quantile: Double, from startSeconds: Double, to endSeconds: Double) -> Double {
        Self.quantile(delays(from: startSeconds, to: endSeconds, \.pacerDelayNs), quantile)
    }

    /// The first time after `startSeconds` from which the queueing delay of every packet sent
    /// stays under `limitMs` until `endSeconds`.
    func secondsUntilQueueDelayStaysUnder(_ limitMs: Double, from startSeconds: Double, to endSeconds: Double)
        -> Double?
    {
        let window = delivered.filter {
            Double($0.sendTimeNs) / 1e9 > startSeconds && Double($0.sendTimeNs) / 1e9 <= endSeconds
        }
        guard let lastOver = window.lastIndex(where: { Double($0.queueDelayNs) / 1e6 >= limitMs }) else { return 0 }
        guard lastOver + 1 < window.count else { return nil }
        return Double(window[lastOver + 1].sendTimeNs) / 1e9 - startSeconds
    }

    private func delays(from startSeconds: Double, to endSeconds: Double, _ delay: KeyPath<DeliveredPacket, Int64>)
        -> [Int64]
    {
        delivered
            .filter {
                !$0.isCopy && Double($0.sendTimeNs) / 1e9 > startSeconds
                    && Double($0.sendTimeNs) / 1e9 <= endSeconds
            }
            .map { $0[keyPath: delay] }
    }

    private static func quantile(_ values: [Int64], _ quantile: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let index = min(Int((Double(sorted.count - 1) * quantile).rounded()), sorted.count - 1)
        return Double(sorted[index]) / 1e6
    }

    /// When the encoder was last seen paused for congestion in a window, and first seen running
    /// after that (samples every 100 ms); nil when it never paused there.
    func encoderPause(from startSeconds: Double, to endSeconds: Double) -> (pausedAtNs: Int64, resumedAtNs: Int64?)? {
        let window = samples(from: startSeconds, to: endSeconds)
        guard let first = window.firstIndex(where: \.isEncoderPaused) else { return nil }
        let resumed = window[first...].first { !$0.isEncoderPaused }
        return (window[first].timeNs, resumed?.timeNs)
    }

    /// The 95th percentile of the bottleneck's queueing delay in each second of a window (ms).
    func queueDelayP95PerSecondMs(from startSeconds: Int, to endSeconds: Int) -> [Double] {
        (startSeconds..<endSeconds).map { queueDelayMs(quantile: 0.95, from: Double($0), to: Double($0 + 1)) }
    }

    /// The controller's trace as `--trace-bwe` would write it.
    var traceCSV: String {
        ([BWETraceRecord.csvHeader] + traces.map(\.csvLine)).joined(separator: "\n") + "\n"
    }
}
