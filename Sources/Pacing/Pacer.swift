import CongestionControl

/// Decides when each queued packet leaves: the pacing policy the send thread runs, after
/// libwebrtc's `PacingController` (modules/pacing/pacing_controller.cc).
///
/// - The queue holds references (the sender's slots) with size, kind and enqueue time; retransmissions go
///   first, then media, then padding, FIFO within a kind.
/// - A budget spends the pacing rate: every released packet adds its size to a debt that drains
///   at the rate. A packet may leave while the debt is within a burst allowance of 40 ms at the
///   rate (at most 63 kB), so a frame that arrives after a quiet spell leaves at once and a
///   backlog leaves evenly at the rate. (libwebrtc, once past the allowance, waits until the
///   whole debt is paid, so a backlog leaves in 40 ms clumps.)
/// - The rate rises above the pacing rate when needed for the queued packets to wait no longer
///   than `queueTimeLimitNs` on average (a keyframe at a low rate, a capacity drop).
/// - Probe clusters are sent at their own rate, ahead of the budget, tagging the packets they
///   use; when the queue is empty a probe asks for padding (`paddingNeeded`).
/// - With a padding rate and nothing queued, it asks for padding up to that rate.
/// - A sender that cannot pad (no padding before the receiver's first feedback, none without
///   media to copy) says so (`paddingUnavailable`): padding and a probe waiting for it are then
///   not due until the next packet is queued (libwebrtc's `probing_send_failure_`), so that the
///   sender does not spin waiting for padding it cannot make.
/// - While the sender says it is congested and nothing is queued, it asks for one keep-alive
///   packet every 500 ms (`isKeepAliveDue`): the encoder is paused until feedback reports the
///   bytes in flight, and if the last packets were lost no feedback would ever come without one.
///
/// Pure and single-threaded: every call carries the time. The send loop waits until
/// `nextSendTimeNs`, then calls `dequeue` until it returns nil (that is the batch), asks
/// `paddingNeeded`, and if that is positive enqueues padding of that size and dequeues again.
/// `dequeue` charges the budget itself, so a batch can never overspend. (A probe that finds
/// the queue empty stays due until padding comes, or until it is 10 ms late and dropped.)
public struct Pacer: Sendable {
    public let configuration: PacerConfiguration
    public private(set) var pacingRateBps: Int64
    public private(set) var paddingRateBps: Int64

    private var queue = PacketQueue()
    private var prober: BitrateProber
    private var mediaDebtBytes = 0.0
    private var paddingDebtBytes = 0.0
    /// The time the debts were last drained to.
    private var budgetTimeNs: Int64?
    private var hasSentMedia = false
    private var lastSendTimeNs: Int64?
    /// The sender could not give the padding asked for; cleared by the next `enqueue`.
    private var isPaddingUnavailable = false
    /// Set by the sender while more bytes are in flight than the congestion window allows.
    public var isCongested = false
    /// Debt below this counts as paid, so rounding never schedules a wake-up with nothing to do.
    private static var debtEpsilonBytes: Double { 1e-6 }

    public init(
        configuration: PacerConfiguration = PacerConfiguration(), pacingRateBps: Int64, paddingRateBps: Int64 = 0
    ) {
        precondition(pacingRateBps > 0, "the pacer needs a rate")
        self.configuration = configuration
        self.pacingRateBps = pacingRateBps
        self.paddingRateBps = min(paddingRateBps, pacingRateBps)
        prober = BitrateProber(configuration: configuration)
    }

    // MARK: Inputs

    /// Applies the controller's rates (`NetworkEstimate.pacingRateBps`, `.paddingRateBps`).
    public mutating func setRates(pacingRateBps: Int64, paddingRateBps: Int64, nowNs: Int64) {
        precondition(pacingRateBps > 0, "the pacer needs a rate")
        drainBudget(to: nowNs)
        self.pacingRateBps = pacingRateBps
        self.paddingRateBps = min(paddingRateBps, pacingRateBps)
    }

    /// Schedules a probe cluster from the controller (`NetworkControlUpdate.probeClusters`).
    public mutating func addProbeCluster(_ cluster: ProbeCluster, nowNs: Int64) {
        prober.add(cluster, nowNs: nowNs)
    }

    public mutating func enqueue(_ handle: Int, sizeBytes: Int, kind: PacketKind, nowNs: Int64) {
        // Settle the budget at the old queue's rate first: the queue-time limit may raise it.
        drainBudget(to: nowNs)
        queue.push(PacedPacket(handle: handle, sizeBytes: sizeBytes, kind: kind, enqueueTimeNs: nowNs))
        prober.onPacketEnqueued(sizeBytes: sizeBytes)
        isPaddingUnavailable = false
    }

    /// The sender has no padding to give for what `paddingNeeded` asked: until the next packet is
    /// queued, padding is not due, and neither is a probe that would need it.
    public mutating func paddingUnavailable() {
        isPaddingUnavailable = true
    }

    // MARK: Release

    /// When the pacer next has something to do (a packet or probe due, or padding), never
    /// before `nowNs`; nil when there is nothing to do until the next `enqueue`, rate change or
    /// probe cluster. While a cluster is being probed, only its schedule counts.
    public func nextSendTimeNs(nowNs: Int64) -> Int64? {
        // A probe with nothing queued needs padding, which may not precede the first media.
        if let probeNs = prober.nextProbeTimeNs(nowNs: nowNs), !queue.isEmpty || (hasSentMedia && !isPaddingUnavailable) {
            return max(probeNs, nowNs)
        }
        if !queue.isEmpty {
            return configuration.isPacingEnabled ? nowNs + mediaWaitNs(nowNs: nowNs) : nowNs
        }
        let paddingNs = configuration.isPacingEnabled && paddingRateBps > 0 && hasSentMedia && !isPaddingUnavailable
            ? nowNs + paddingWaitNs(nowNs: nowNs) : Int64.max
        let keepAliveNs = keepAliveTimeNs.map { max($0, nowNs) } ?? Int64.max
        let nextNs = min(paddingNs, keepAliveNs)
        return nextNs == Int64.max ? nil : nextNs
    }

    /// The next packet to send at `nowNs`, charged to the budget; nil when none is due.
    public mutating func dequeue(nowNs: Int64) -> PacedPacket? {
        drainBudget(to: nowNs)
        var probeClusterID: Int?
        if prober.isActive, let cluster = prober.dueCluster(nowNs: nowNs) {
            probeClusterID = cluster.id  // Probes go ahead of the budget.
        } else if prober.isActive {
            return nil  // Between two packets of a probe: nothing else may go, or the probe would measure it.
        } else if configuration.isPacingEnabled
            && mediaDebtBytes > burstAllowanceBytes(nowNs: nowNs) + Self.debtEpsilonBytes
        {
            return nil
        }
        guard var packet = queue.pop() else { return nil }  // A due probe then waits for padding.
        packet.probeClusterID = probeClusterID
        if probeClusterID != nil {
            prober.onProbeSent(sizeBytes: packet.sizeBytes, nowNs: nowNs)
        }
        charge(packet.sizeBytes, nowNs: nowNs)
        lastSendTimeNs = nowNs
        if packet.kind != .padding {
            hasSentMedia = true
        }
        return packet
    }

    /// Bytes of padding the sender should enqueue now (as `.padding`): for a probe that finds
    /// the queue empty, or to keep up the padding rate. 0 while anything is queued, and before
    /// the first media packet.
    public func paddingNeeded(nowNs: Int64) -> Int {
        guard queue.isEmpty, hasSentMedia, !isPaddingUnavailable else { return 0 }
        if let cluster = prober.currentCluster, let dueNs = prober.nextProbeTimeNs(nowNs: nowNs), dueNs <= nowNs {
            return max(prober.recommendedProbeBytes(cluster), configuration.probeMinPacketBytes)
        }
        guard configuration.isPacingEnabled, paddingRateBps > 0, paddingWaitNs(nowNs: nowNs) == 0 else { return 0 }
        return Int(Double(paddingRateBps) * Double(configuration.paddingChunkNs) / 8e9)
    }

    /// Whether the sender should queue one packet now (as `.padding`, of any size) to keep
    /// feedback coming while it is congested; false while anything is queued.
    public func isKeepAliveDue(nowNs: Int64) -> Bool {
        guard queue.isEmpty, let dueNs = keepAliveTimeNs else { return false }
        return dueNs <= nowNs
    }

    /// When the next keep-alive is due: `keepAliveIntervalNs` after the last packet, while congested.
    private var keepAliveTimeNs: Int64? {
        guard isCongested, hasSentMedia, let lastSendTimeNs else { return nil }
        return lastSendTimeNs + configuration.keepAliveIntervalNs
    }

    // MARK: Statistics

    public var queuedPacketCount: Int { queue.count }

    public var queuedBytes: Int { queue.sizeBytes }

    /// When the packet that has waited longest was queued.
    public var oldestEnqueueTimeNs: Int64? { queue.oldestEnqueueTimeNs }

    /// The rate the queue drains at: the pacing rate, or more when the queue-time limit needs it.
    public func effectiveRateBps(nowNs: Int64) -> Int64 {
        Int64(mediaRateBps(nowNs: nowNs))
    }

    /// How long the queue takes to drain at the effective rate.
    public func expectedQueueTimeNs(nowNs: Int64) -> Int64 {
        Int64(Double(queue.sizeBytes) * 8e9 / mediaRateBps(nowNs: nowNs))
    }

    // MARK: Budget

    /// The pacing rate, raised so that the queue drains within the time its packets have left
    /// under the queue-time limit.
    private func mediaRateBps(nowNs: Int64) -> Double {
        let rateBps = Double(pacingRateBps)
        guard !queue.isEmpty else { return rateBps }
        let timeLeftNs = max(1_000_000, configuration.queueTimeLimitNs - queue.averageQueueTimeNs(nowNs: nowNs))
        return max(rateBps, Double(queue.sizeBytes) * 8e9 / Double(timeLeftNs))
    }

    private func burstAllowanceBytes(nowNs: Int64) -> Double {
        min(
            mediaRateBps(nowNs: nowNs) * Double(configuration.burstIntervalNs) / 8e9,
            Double(configuration.maxBurstBytes))
    }

    private func drainedMediaDebt(nowNs: Int64) -> Double {
        drained(mediaDebtBytes, rateBps: mediaRateBps(nowNs: nowNs), nowNs: nowNs)
    }

    private func drainedPaddingDebt(nowNs: Int64) -> Double {
        drained(paddingDebtBytes, rateBps: Double(paddingRateBps), nowNs: nowNs)
    }

    /// `debtBytes` less what `rateBps` paid since the budget was last settled; a sliver left by
    /// rounding counts as paid, so that it never schedules a wake-up with nothing to do.
    private func drained(_ debtBytes: Double, rateBps: Double, nowNs: Int64) -> Double {
        let elapsedNs = budgetTimeNs.map { max(0, nowNs - $0) } ?? 0
        let remaining = debtBytes - rateBps * Double(elapsedNs) / 8e9
        return remaining > Self.debtEpsilonBytes ? remaining : 0
    }

    /// Time until the debt is back within the burst allowance.
    private func mediaWaitNs(nowNs: Int64) -> Int64 {
        let excessBytes = drainedMediaDebt(nowNs: nowNs) - burstAllowanceBytes(nowNs: nowNs)
        guard excessBytes > Self.debtEpsilonBytes else { return 0 }
        return Int64((excessBytes * 8e9 / mediaRateBps(nowNs: nowNs)).rounded(.up))
    }

    /// Time until both debts are paid, when padding may go out.
    private func paddingWaitNs(nowNs: Int64) -> Int64 {
        let mediaNs = drainedMediaDebt(nowNs: nowNs) * 8e9 / Double(pacingRateBps)
        let paddingNs = paddingRateBps > 0 ? drainedPaddingDebt(nowNs: nowNs) * 8e9 / Double(paddingRateBps) : 0
        return Int64(max(mediaNs, paddingNs).rounded(.up))
    }

    private mutating func drainBudget(to nowNs: Int64) {
        mediaDebtBytes = drainedMediaDebt(nowNs: nowNs)
        paddingDebtBytes = drainedPaddingDebt(nowNs: nowNs)
        budgetTimeNs = max(budgetTimeNs ?? nowNs, nowNs)
    }

    private mutating func charge(_ sizeBytes: Int, nowNs: Int64) {
        let maxDebtSeconds = Double(configuration.maxDebtNs) / 1e9
        mediaDebtBytes = min(mediaDebtBytes + Double(sizeBytes), mediaRateBps(nowNs: nowNs) / 8 * maxDebtSeconds)
        paddingDebtBytes = min(paddingDebtBytes + Double(sizeBytes), Double(paddingRateBps) / 8 * maxDebtSeconds)
    }
}
