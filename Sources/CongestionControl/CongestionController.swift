/// Send-side congestion control for one transport, shaped after libwebrtc's goog_cc
/// (`GoogCcNetworkController`): it turns what the send loop observes (packets sent, transport
/// feedback, REMB, receiver-report loss, RTT) into the rates the loop applies.
///
/// - The delay-based estimate (`DelayBasedBandwidthEstimator`) reads the one-way delay trend
///   from transport feedback and runs AIMD on the acknowledged throughput; probe results set
///   it outright.
/// - The loss-based controller (`LossBasedBandwidthEstimator`) owns the target: it follows
///   loss (from transport feedback, or from receiver reports when there is none) and is capped
///   by the delay-based estimate, REMB and the configured maximum.
/// - The probe controller asks the pacer for probe clusters at start-up (and again while they
///   succeed) and, after a large drop, every 5 s to find lost capacity again.
/// - The congestion window (RTT + 350 ms of the target) pushes the encoder back when too many
///   bytes are in flight.
///
/// Pure and single-threaded: every input carries its time, nothing reads a clock. Feed every
/// packet that leaves the socket to `onPacketSent` (it allocates nothing), call `process`
/// every ~25 ms, and apply the `NetworkControlUpdate` each input returns.
public struct CongestionController: Sendable {
    /// How often transport-feedback loss is handed to the loss-based controller (libwebrtc's
    /// `kLossUpdateInterval`).
    static let lossUpdateIntervalNs: Int64 = 1_000_000_000
    /// A probe result below the current estimate is not trusted below this share of the
    /// acknowledged rate (libwebrtc's `kProbeDropThroughputFraction`).
    static let probeDropThroughputFraction = 0.85
    /// Retransmissions never take more than this share of the encoder's rate.
    static let maxRetransmissionShare = 0.5
    /// Probe clusters are forgotten this long after they were requested.
    static let probeClusterLifetimeNs: Int64 = 10_000_000_000

    public let configuration: CongestionControllerConfiguration
    /// The rates in force (the last update's estimate).
    public private(set) var estimate: NetworkEstimate

    private var history = SentPacketHistory()
    private var retransmissionRate = SendRateWindow()
    private var delayBased: DelayBasedBandwidthEstimator
    private var lossBased: LossBasedBandwidthEstimator
    private var acknowledged = AcknowledgedBitrateEstimator()
    private var probeEstimator = ProbeBitrateEstimator()
    private var probeController: ProbeController
    private var congestionWindow = CongestionWindow()
    private var requestedProbeClusters: [Int: ProbeCluster] = [:]
    private var hasTransportFeedback = false
    private var reportedRTTNs: Int64?
    private var lostSinceLossUpdate = 0
    private var expectedSinceLossUpdate = 0
    private var nextLossUpdateNs: Int64?
    /// The loss-based target the probe controller last saw.
    private var lastNetworkTargetBps: Double

    public init(configuration: CongestionControllerConfiguration = CongestionControllerConfiguration()) {
        self.configuration = configuration
        let startBps = Double(configuration.startBitrateBps)
        delayBased = DelayBasedBandwidthEstimator(
            startBitrateBps: startBps, minBitrateBps: Double(configuration.minBitrateBps))
        lossBased = LossBasedBandwidthEstimator(
            startBitrateBps: startBps, minBitrateBps: Double(configuration.minBitrateBps),
            maxBitrateBps: Double(configuration.maxBitrateBps))
        probeController = ProbeController(startBitrateBps: startBps, maxBitrateBps: Double(configuration.maxBitrateBps))
        lastNetworkTargetBps = startBps
        estimate = NetworkEstimate(
            atTimeNs: 0, targetBitrateBps: configuration.startBitrateBps,
            encoderBitrateBps: configuration.startBitrateBps,
            pacingRateBps: Int64(startBps * configuration.pacingFactorBeforeFeedback),
            paddingRateBps: min(configuration.maxPaddingBitrateBps, configuration.startBitrateBps),
            congestionWindowBytes: nil, bytesInFlight: 0, roundTripTimeNs: 0, lossFraction: 0)
    }

    /// The first estimate and the start-up probe clusters; call once, before sending.
    public mutating func start(nowNs: Int64) -> NetworkControlUpdate {
        var update = makeUpdate(nowNs: nowNs, event: .start, forceEstimate: true)
        if configuration.isProbingEnabled {
            update.probeClusters = register(probeController.start(nowNs: nowNs))
        }
        return update
    }

    /// Records a packet that left the socket. Number packets in the order they are sent.
    public mutating func onPacketSent(_ packet: SentPacket) {
        history.add(packet)
        if packet.kind == .retransmission {
            retransmissionRate.add(sizeBytes: packet.sizeBytes, nowNs: packet.sendTimeNs)
        }
    }

    /// Runs one transport feedback message through the estimators.
    public mutating func onTransportFeedback(_ feedback: TransportFeedback) -> NetworkControlUpdate {
        let nowNs = feedback.feedbackTimeNs
        var received: [DelayBasedBandwidthEstimator.ReceivedPacket] = []
        var receivedProbes: [(cluster: ProbeCluster, packet: DelayBasedBandwidthEstimator.ReceivedPacket)] = []
        received.reserveCapacity(feedback.packets.count)
        var reportedCount = 0
        var lostCount = 0
        var maxFeedbackRTTNs: Int64?
        for report in feedback.packets {
            guard let sent = history.takeReport(sequenceNumber: report.sequenceNumber) else { continue }
            reportedCount += 1
            maxFeedbackRTTNs = max(maxFeedbackRTTNs ?? .min, nowNs - sent.sendTimeNs)
            guard let receiveTimeNs = report.receiveTimeNs else {
                lostCount += 1
                continue
            }
            let packet = DelayBasedBandwidthEstimator.ReceivedPacket(
                sendTimeNs: sent.sendTimeNs, receiveTimeNs: receiveTimeNs, sizeBytes: sent.sizeBytes)
            received.append(packet)
            if let id = sent.probeClusterID, let cluster = requestedProbeClusters[id] {
                receivedProbes.append((cluster, packet))
            }
        }
        guard reportedCount > 0, let maxFeedbackRTTNs else { return NetworkControlUpdate() }
        hasTransportFeedback = true
        congestionWindow.addFeedbackRTT(maxFeedbackRTTNs)
        applyRTT()
        received.sort { $0.receiveTimeNs < $1.receiveTimeNs }
        receivedProbes.sort { $0.packet.receiveTimeNs < $1.packet.receiveTimeNs }

        lostSinceLossUpdate += lostCount
        expectedSinceLossUpdate += reportedCount
        if nextLossUpdateNs.map({ nowNs > $0 }) ?? true {
            nextLossUpdateNs = nowNs + Self.lossUpdateIntervalNs
            lossBased.updatePacketsLost(lost: lostSinceLossUpdate, expected: expectedSinceLossUpdate, nowNs: nowNs)
            lostSinceLossUpdate = 0
            expectedSinceLossUpdate = 0
        }

        for packet in received {
            acknowledged.update(receiveTimeNs: packet.receiveTimeNs, sizeBytes: packet.sizeBytes)
        }
        for (cluster, packet) in receivedProbes {
            probeEstimator.handle(
                cluster: cluster, sendTimeNs: packet.sendTimeNs, receiveTimeNs: packet.receiveTimeNs,
                sizeBytes: packet.sizeBytes)
        }
        var probe = probeEstimator.takeResult()
        if let measured = probe?.bitrateBps, let acknowledgedBps = acknowledged.bitrateBps {
            // A probe that came back low (cross traffic, a short burst) must not drag the
            // estimate far below what the path demonstrably carries.
            probe?.bitrateBps = max(
                measured, min(delayBased.estimateBps, acknowledgedBps * Self.probeDropThroughputFraction))
        }

        let result = delayBased.update(
            received: received, feedbackTimeNs: nowNs, acknowledgedBps: acknowledged.bitrateBps, probe: probe)
        if result.updated {
            if result.probe {
                lossBased.setSendBitrate(result.targetBps)
            }
            lossBased.setDelayBasedLimit(result.targetBps)
        }
        congestionWindow.update(targetBps: lossBased.targetBps)
        return makeUpdate(nowNs: nowNs, event: .feedback, probeBps: result.probe ? probe?.bitrateBps : nil)
    }

    /// Applies a REMB (bit/s) as a cap on the target.
    public mutating func onReceiverEstimatedMaximumBitrate(_ bitrateBps: Int64, nowNs: Int64) -> NetworkControlUpdate {
        let limitBps = bitrateBps > 0 ? Double(bitrateBps) : .infinity
        lossBased.setReceiverLimit(limitBps)
        probeController.receiverLimitBps = limitBps
        return makeUpdate(nowNs: nowNs, event: .remb)
    }

    /// Takes a receiver report's loss since the previous report: `expectedPackets` is the
    /// growth of the extended highest sequence number, `lostPackets` that of the cumulative
    /// lost count. Ignored once transport feedback arrives, which counts loss itself.
    public mutating func onReceiverReportLoss(lostPackets: Int, expectedPackets: Int, nowNs: Int64)
        -> NetworkControlUpdate
    {
        if !hasTransportFeedback {
            lossBased.updatePacketsLost(lost: lostPackets, expected: expectedPackets, nowNs: nowNs)
        }
        return makeUpdate(nowNs: nowNs, event: .lossReport)
    }

    /// Takes a round-trip time measured from receiver reports; it replaces the coarser one
    /// derived from transport feedback.
    public mutating func onRoundTripTime(_ rttNs: Int64, nowNs: Int64) -> NetworkControlUpdate {
        reportedRTTNs = rttNs
        applyRTT()
        return makeUpdate(nowNs: nowNs, event: .rtt)
    }

    /// The periodic tick (every ~25 ms): loss-based increase, probe timeouts and recovery
    /// probes, pushback. Returns an estimate and a trace record only when the rates changed or
    /// probes are due.
    public mutating func process(nowNs: Int64) -> NetworkControlUpdate {
        lossBased.updateEstimate(nowNs: nowNs)
        var update = makeUpdate(nowNs: nowNs, event: .process)
        if configuration.isProbingEnabled && hasTransportFeedback {
            let clusters = probeController.process(nowNs: nowNs, lossFraction: lossBased.lossFraction)
            update.probeClusters += register(clusters)
        }
        if update.estimate == nil && update.probeClusters.isEmpty {
            update.trace = nil
        }
        return update
    }

    private var roundTripTimeNs: Int64 {
        reportedRTTNs ?? congestionWindow.meanFeedbackRTTNs ?? 0
    }

    private mutating func applyRTT() {
        guard let rttNs = reportedRTTNs ?? congestionWindow.meanFeedbackRTTNs else { return }
        delayBased.setRTT(rttNs)
        lossBased.rttNs = rttNs
    }

    private mutating func register(_ clusters: [ProbeCluster]) -> [ProbeCluster] {
        guard let newest = clusters.last else { return clusters }
        requestedProbeClusters = requestedProbeClusters.filter {
            newest.createdAtNs - $0.value.createdAtNs < Self.probeClusterLifetimeNs
        }
        for cluster in clusters {
            requestedProbeClusters[cluster.id] = cluster
        }
        return clusters
    }

    /// Derives the rates from the loss-based target, records them and says what changed.
    private mutating func makeUpdate(
        nowNs: Int64, event: BWETraceRecord.Event, probeBps: Double? = nil, forceEstimate: Bool = false
    ) -> NetworkControlUpdate {
        let minBps = Double(configuration.minBitrateBps)
        let networkTargetBps = lossBased.targetBps
        let targetBps = max(
            minBps, congestionWindow.pushbackTarget(networkTargetBps, bytesInFlight: history.bytesInFlight))
        let retransmissionBps = min(retransmissionRate.rateBps(nowNs: nowNs), Self.maxRetransmissionShare * targetBps)
        let pacingFactor = hasTransportFeedback ? configuration.pacingFactor : configuration.pacingFactorBeforeFeedback
        let next = NetworkEstimate(
            atTimeNs: nowNs, targetBitrateBps: Int64(targetBps),
            encoderBitrateBps: Int64(max(minBps, targetBps - retransmissionBps)),
            pacingRateBps: Int64(networkTargetBps * pacingFactor),
            paddingRateBps: min(configuration.maxPaddingBitrateBps, Int64(targetBps)),
            congestionWindowBytes: congestionWindow.windowBytes, bytesInFlight: history.bytesInFlight,
            roundTripTimeNs: roundTripTimeNs, lossFraction: lossBased.lossFraction)
        var update = NetworkControlUpdate()
        if forceEstimate || next.changesRates(from: estimate) {
            update.estimate = next
        }
        estimate = next
        if networkTargetBps != lastNetworkTargetBps {
            lastNetworkTargetBps = networkTargetBps
            if configuration.isProbingEnabled {
                update.probeClusters = register(probeController.setEstimatedBitrate(networkTargetBps, nowNs: nowNs))
            }
        }
        update.trace = traceRecord(nowNs: nowNs, event: event, probeBps: probeBps)
        return update
    }

    private func traceRecord(nowNs: Int64, event: BWETraceRecord.Event, probeBps: Double?) -> BWETraceRecord {
        BWETraceRecord(
            timeNs: nowNs, event: event, targetBitrateBps: estimate.targetBitrateBps,
            encoderBitrateBps: estimate.encoderBitrateBps, pacingRateBps: estimate.pacingRateBps,
            delayBasedBitrateBps: Int64(delayBased.estimateBps), lossBasedBitrateBps: Int64(lossBased.targetBps),
            acknowledgedBitrateBps: acknowledged.bitrateBps.map { Int64($0) },
            probeBitrateBps: probeBps.map { Int64($0) },
            receiverLimitBps: lossBased.receiverLimitBps.isFinite ? Int64(lossBased.receiverLimitBps) : nil,
            trend: delayBased.trendline.trend, modifiedTrend: delayBased.detector.modifiedTrend,
            thresholdMs: delayBased.detector.thresholdMs, detectorState: delayBased.usage,
            rateControlState: delayBased.rateControl.state, lossFraction: lossBased.lossFraction,
            roundTripTimeNs: estimate.roundTripTimeNs, congestionWindowBytes: estimate.congestionWindowBytes,
            bytesInFlight: estimate.bytesInFlight)
    }
}
