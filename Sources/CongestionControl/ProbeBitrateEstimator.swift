/// The path's rate as a probe cluster measured it: libwebrtc's `ProbeBitrateEstimator`
/// (goog_cc/probe_bitrate_estimator.cc).
///
/// The send rate is the cluster's bytes (less the last packet) over its send interval, the
/// receive rate its bytes (less the first packet) over its receive interval. If the receiver got
/// the packets clearly slower than we sent them (below 90 %), the path was saturated and the
/// result is 95 % of the receive rate; otherwise it is the lower of the two. A cluster needs
/// 80 % of its packets and bytes acknowledged, intervals under a second and a receive rate no
/// more than twice the send rate (else the timing is noise). Unlike libwebrtc, a saturated
/// result also hands on the receive rate as a measured capacity, for AIMD.
struct ProbeBitrateEstimator: Sendable {
    struct Result: Sendable, Equatable {
        /// The rate to adopt.
        var bitrateBps: Double
        /// The receive rate, when the probe saturated the path: a measure of its capacity.
        var capacityBps: Double?
    }

    static let minReceivedProbesRatio = 0.8
    static let minReceivedBytesRatio = 0.8
    static let maxValidRatio = 2.0
    static let minRatioForUnsaturatedLink = 0.9
    static let targetUtilizationFraction = 0.95
    static let maxClusterHistoryNs: Int64 = 1_000_000_000
    static let maxProbeIntervalNs: Int64 = 1_000_000_000

    private struct AggregatedCluster: Sendable {
        var packetCount = 0
        var firstSendNs = Int64.max
        var lastSendNs = Int64.min
        var firstReceiveNs = Int64.max
        var lastReceiveNs = Int64.min
        var lastSendSizeBytes = 0
        var firstReceiveSizeBytes = 0
        var totalBytes = 0
    }

    private var clusters: [Int: AggregatedCluster] = [:]
    private var lastResult: Result?

    /// Adds one acknowledged packet of `cluster`; returns the cluster's result once it is complete.
    @discardableResult
    mutating func handle(
        cluster: ProbeCluster, sendTimeNs: Int64, receiveTimeNs: Int64, sizeBytes: Int
    ) -> Result? {
        clusters = clusters.filter { $0.value.lastReceiveNs + Self.maxClusterHistoryNs >= receiveTimeNs }
        var aggregate = clusters[cluster.id] ?? AggregatedCluster()
        if sendTimeNs < aggregate.firstSendNs {
            aggregate.firstSendNs = sendTimeNs
        }
        if sendTimeNs > aggregate.lastSendNs {
            aggregate.lastSendNs = sendTimeNs
            aggregate.lastSendSizeBytes = sizeBytes
        }
        if receiveTimeNs < aggregate.firstReceiveNs {
            aggregate.firstReceiveNs = receiveTimeNs
            aggregate.firstReceiveSizeBytes = sizeBytes
        }
        if receiveTimeNs > aggregate.lastReceiveNs {
            aggregate.lastReceiveNs = receiveTimeNs
        }
        aggregate.totalBytes += sizeBytes
        aggregate.packetCount += 1
        clusters[cluster.id] = aggregate

        guard Double(aggregate.packetCount) >= Double(cluster.minPackets) * Self.minReceivedProbesRatio,
            Double(aggregate.totalBytes) >= Double(cluster.minBytes) * Self.minReceivedBytesRatio
        else { return nil }
        let sendIntervalNs = aggregate.lastSendNs - aggregate.firstSendNs
        let receiveIntervalNs = aggregate.lastReceiveNs - aggregate.firstReceiveNs
        guard sendIntervalNs > 0, sendIntervalNs <= Self.maxProbeIntervalNs,
            receiveIntervalNs > 0, receiveIntervalNs <= Self.maxProbeIntervalNs
        else { return nil }
        let sendRateBps = 8e9 * Double(aggregate.totalBytes - aggregate.lastSendSizeBytes) / Double(sendIntervalNs)
        let receiveRateBps =
            8e9 * Double(aggregate.totalBytes - aggregate.firstReceiveSizeBytes) / Double(receiveIntervalNs)
        guard receiveRateBps / sendRateBps <= Self.maxValidRatio else { return nil }
        var result = Result(bitrateBps: min(sendRateBps, receiveRateBps))
        if receiveRateBps < Self.minRatioForUnsaturatedLink * sendRateBps {
            result = Result(bitrateBps: Self.targetUtilizationFraction * receiveRateBps, capacityBps: receiveRateBps)
        }
        lastResult = result
        return result
    }

    /// The latest complete result, once.
    mutating func takeResult() -> Result? {
        defer { lastResult = nil }
        return lastResult
    }
}
