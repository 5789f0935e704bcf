import CongestionControl

/// Runs probe clusters: libwebrtc's `BitrateProber` (modules/pacing/bitrate_prober.cc).
///
/// A cluster starts when a packet worth probing with is queued (a probe of padding alone before
/// any media would carry no RTP timestamps worth having). Its packets go out so that the bytes
/// sent since its start track its rate; it is done after `minPackets` packets and `minBytes`
/// bytes. Clusters run one after another; one that falls more than `probeMaxDelayNs` behind its
/// schedule, or is not started within `probeClusterTimeoutNs`, is dropped.
struct BitrateProber: Sendable {
    private struct RunningCluster: Sendable {
        var cluster: ProbeCluster
        var sentBytes = 0
        var sentPackets = 0
        var startedAtNs: Int64?
    }

    private let configuration: PacerConfiguration
    private var clusters: [RunningCluster] = []
    private(set) var isActive = false
    /// When the next probe packet is due; nil: at once.
    private var nextProbeTimeNs: Int64?

    init(configuration: PacerConfiguration) {
        self.configuration = configuration
    }

    /// The cluster being probed, if probing is active.
    var currentCluster: ProbeCluster? { isActive ? clusters.first?.cluster : nil }

    /// Queues `cluster` (one without a positive rate or any packets is ignored), dropping
    /// clusters that waited too long to start.
    mutating func add(_ cluster: ProbeCluster, nowNs: Int64) {
        guard cluster.bitrateBps > 0, cluster.minPackets > 0 else { return }
        clusters.removeAll {
            $0.startedAtNs == nil && nowNs - $0.cluster.createdAtNs > configuration.probeClusterTimeoutNs
        }
        clusters.append(RunningCluster(cluster: cluster))
    }

    /// Starts probing when a packet big enough to probe with is queued.
    mutating func onPacketEnqueued(sizeBytes: Int) {
        guard !isActive, let cluster = clusters.first?.cluster else { return }
        if sizeBytes >= min(recommendedProbeBytes(cluster), configuration.probeMinPacketBytes) {
            isActive = true
            nextProbeTimeNs = nil
        }
    }

    /// When the next probe packet is due, if probing.
    func nextProbeTimeNs(nowNs: Int64) -> Int64? {
        guard isActive, !clusters.isEmpty else { return nil }
        return nextProbeTimeNs ?? nowNs
    }

    /// The cluster whose packet is due at `nowNs`, dropping one that fell too far behind.
    mutating func dueCluster(nowNs: Int64) -> ProbeCluster? {
        guard isActive, !clusters.isEmpty else { return nil }
        if let nextProbeTimeNs, nowNs - nextProbeTimeNs > configuration.probeMaxDelayNs {
            clusters.removeFirst()
            self.nextProbeTimeNs = nil
            if clusters.isEmpty {
                isActive = false
                return nil
            }
        }
        if let nextProbeTimeNs, nowNs < nextProbeTimeNs {
            return nil
        }
        return clusters.first?.cluster
    }

    /// The bytes one probe step should carry: the probe rate over `probeMinDeltaNs`.
    func recommendedProbeBytes(_ cluster: ProbeCluster) -> Int {
        Int(Double(cluster.bitrateBps) * Double(configuration.probeMinDeltaNs) / 8e9)
    }

    mutating func onProbeSent(sizeBytes: Int, nowNs: Int64) {
        guard var running = clusters.first else { return }
        let startedAtNs = running.startedAtNs ?? nowNs
        running.startedAtNs = startedAtNs
        running.sentBytes += sizeBytes
        running.sentPackets += 1
        nextProbeTimeNs = startedAtNs + Int64(Double(running.sentBytes) * 8e9 / Double(running.cluster.bitrateBps))
        if running.sentBytes >= running.cluster.minBytes && running.sentPackets >= running.cluster.minPackets {
            clusters.removeFirst()
        } else {
            clusters[0] = running
        }
        if clusters.isEmpty {
            isActive = false
        }
    }
}
