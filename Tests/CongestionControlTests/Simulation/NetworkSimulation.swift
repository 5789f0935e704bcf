import CongestionControl
import Pacing

/// Runs one `LinkScenario` on a simulated clock: a video source encodes at the controller's
/// rate into the pacer, the pacer's packets cross the bottleneck, the receiver's feedback comes
/// back a propagation delay later, and the controller's updates drive the encoder and the pacer,
/// wired as the send loop will wire them. Deterministic: the same scenario gives the same result.
struct NetworkSimulation {
    static let processIntervalNs: Int64 = 25_000_000
    static let receiverReportIntervalNs: Int64 = 1_000_000_000
    static let maxPaddingPacketBytes = 1200

    private let scenario: LinkScenario
    private let endNs: Int64
    private var nowNs: Int64 = 0
    private var controller: CongestionController
    private var pacer: Pacer<Int>
    private var link: SimulatedLink
    private var receiver = SimulatedReceiver()
    private var source: SimulatedVideoSource
    private var result = SimulationResult()

    private var nextSequenceNumber: Int64 = 0
    private var nextHandle = 0
    /// Packets on the wire after the bottleneck, and feedback on its way back (FIFOs: every
    /// packet takes the same propagation delay).
    private var packetsInFlight: [(arrivalNs: Int64, packet: SimulatedPacket)] = []
    private var transportFeedbackInFlight: [TransportFeedback] = []
    private var lossReportsInFlight: [(arrivalNs: Int64, lost: Int, expected: Int)] = []
    private var nextFeedbackNs: Int64?
    private var nextReceiverReportNs: Int64 = Self.receiverReportIntervalNs
    private var nextProcessNs: Int64 = Self.processIntervalNs
    private var nextRembNs: Int64?
    private var nextSampleNs: Int64 = SimulationResult.sampleIntervalNs
    private var deliveredBytesSinceSample = 0
    private var packetsByHandle: [Int: SimulatedPacket] = [:]

    static func run(_ scenario: LinkScenario) -> SimulationResult {
        var simulation = NetworkSimulation(scenario: scenario)
        simulation.run()
        return simulation.result
    }

    private init(scenario: LinkScenario) {
        self.scenario = scenario
        endNs = Int64(scenario.durationSeconds * 1e9)
        controller = CongestionController(
            configuration: CongestionControllerConfiguration(
                startBitrateBps: scenario.startBitrateBps, maxBitrateBps: scenario.maxBitrateBps))
        pacer = Pacer(
            configuration: PacerConfiguration(isPacingEnabled: scenario.isPacingEnabled),
            pacingRateBps: controller.estimate.pacingRateBps)
        link = SimulatedLink(
            capacitySchedule: scenario.capacity.map { (Int64($0.atSeconds * 1e9), $0.kbps * 1000) },
            propagationDelayNs: scenario.propagationDelayNs, queueLimitNs: scenario.queueLimitNs,
            randomLossFraction: scenario.randomLossFraction, seed: scenario.seed)
        source = SimulatedVideoSource(keyframeIntervalNs: scenario.keyframeIntervalNs, seed: scenario.seed &+ 1)
        if case .transportWide(let intervalNs) = scenario.feedback {
            nextFeedbackNs = intervalNs
        }
        if scenario.rembBps != nil {
            nextRembNs = 0
        }
    }

    private mutating func run() {
        apply(controller.start(nowNs: 0))
        var stalledSteps = 0
        while nowNs < endNs {
            let previousNs = nowNs
            nowNs = nextEventNs()
            stalledSteps = nowNs == previousNs ? stalledSteps + 1 : 0
            precondition(stalledSteps < 10_000, "the simulation stopped advancing at \(nowNs) ns")
            step()
        }
        result.droppedByQueue = link.droppedByQueue
        result.droppedAtRandom = link.droppedAtRandom
    }

    private func nextEventNs() -> Int64 {
        var candidates: [Int64?] = [
            source.nextFrameNs, pacer.nextSendTimeNs(nowNs: nowNs), link.nextDepartureNs,
            packetsInFlight.first?.arrivalNs,
            transportFeedbackInFlight.first?.feedbackTimeNs, lossReportsInFlight.first?.arrivalNs, nextFeedbackNs,
            nextReceiverReportNs, nextProcessNs, nextRembNs, nextSampleNs,
        ]
        candidates.append(endNs)
        return candidates.compactMap { $0 }.min()!
    }

    /// Handles everything due at `nowNs`, network first, then the sender.
    private mutating func step() {
        while let departureNs = link.nextDepartureNs, departureNs <= nowNs {
            let (packet, arrivalNs) = link.departHead()
            packetsInFlight.append((arrivalNs, packet))
        }
        while let first = packetsInFlight.first, first.arrivalNs <= nowNs {
            packetsInFlight.removeFirst()
            deliver(first.packet, arrivalNs: first.arrivalNs)
        }
        if let feedbackNs = nextFeedbackNs, feedbackNs <= nowNs, case .transportWide(let intervalNs) = scenario.feedback
        {
            nextFeedbackNs = feedbackNs + intervalNs
            if var feedback = receiver.makeFeedback(feedbackTimeNs: 0) {
                feedback.feedbackTimeNs = nowNs + scenario.propagationDelayNs
                transportFeedbackInFlight.append(feedback)
            }
        }
        if nextReceiverReportNs <= nowNs {
            nextReceiverReportNs += Self.receiverReportIntervalNs
            let report = receiver.makeLossReport()
            lossReportsInFlight.append((nowNs + scenario.propagationDelayNs, report.lost, report.expected))
        }
        while let feedback = transportFeedbackInFlight.first, feedback.feedbackTimeNs <= nowNs {
            transportFeedbackInFlight.removeFirst()
            apply(controller.onTransportFeedback(feedback))
        }
        while let report = lossReportsInFlight.first, report.arrivalNs <= nowNs {
            lossReportsInFlight.removeFirst()
            apply(
                controller.onReceiverReportLoss(
                    lostPackets: report.lost, expectedPackets: report.expected, nowNs: nowNs))
            apply(controller.onRoundTripTime(2 * scenario.propagationDelayNs, nowNs: nowNs))
        }
        if let rembNs = nextRembNs, rembNs <= nowNs, let rembBps = scenario.rembBps {
            nextRembNs = rembNs + 1_000_000_000
            apply(controller.onReceiverEstimatedMaximumBitrate(rembBps, nowNs: nowNs))
        }
        if nextProcessNs <= nowNs {
            nextProcessNs += Self.processIntervalNs
            apply(controller.process(nowNs: nowNs))
        }
        if source.nextFrameNs <= nowNs {
            for sizeBytes in source.makeFrame(nowNs: nowNs, bitrateBps: controller.estimate.encoderBitrateBps) {
                enqueue(sizeBytes: sizeBytes, kind: .media)
            }
        }
        if let wakeNs = pacer.nextSendTimeNs(nowNs: nowNs), wakeNs <= nowNs {
            runPacer()
        }
        if nextSampleNs <= nowNs {
            nextSampleNs += SimulationResult.sampleIntervalNs
            result.samples.append(
                SimulationResult.Sample(
                    timeNs: nowNs, targetBps: controller.estimate.targetBitrateBps,
                    encoderBps: controller.estimate.encoderBitrateBps, capacityBps: link.capacityBps(atNs: nowNs),
                    deliveredBps: Int64(deliveredBytesSinceSample) * 8 * 1_000_000_000
                        / SimulationResult.sampleIntervalNs))
            deliveredBytesSinceSample = 0
        }
    }

    /// The send loop's pacer wake-up: release what is due, padding when asked.
    private mutating func runPacer() {
        while true {
            if let paced = pacer.dequeue(nowNs: nowNs) {
                send(paced)
            } else if case let paddingBytes = pacer.paddingNeeded(nowNs: nowNs), paddingBytes > 0 {
                var remaining = paddingBytes
                while remaining > 0 {
                    let sizeBytes = min(remaining, Self.maxPaddingPacketBytes)
                    enqueue(sizeBytes: sizeBytes, kind: .padding)
                    remaining -= sizeBytes
                }
            } else {
                return
            }
        }
    }

    private mutating func enqueue(sizeBytes: Int, kind: PacketKind) {
        let handle = nextHandle
        nextHandle += 1
        packetsByHandle[handle] = SimulatedPacket(
            sequenceNumber: -1, sizeBytes: sizeBytes, kind: kind, enqueueTimeNs: nowNs, sendTimeNs: -1)
        pacer.enqueue(handle, sizeBytes: sizeBytes, kind: kind, nowNs: nowNs)
    }

    private mutating func send(_ paced: PacedPacket<Int>) {
        guard var packet = packetsByHandle.removeValue(forKey: paced.handle) else {
            preconditionFailure("the pacer released an unknown handle")
        }
        packet.sequenceNumber = nextSequenceNumber
        nextSequenceNumber += 1
        packet.sendTimeNs = nowNs
        packet.probeClusterID = paced.probeClusterID
        controller.onPacketSent(
            SentPacket(
                sequenceNumber: packet.sequenceNumber, sendTimeNs: nowNs, sizeBytes: packet.sizeBytes,
                kind: packet.kind,
                probeClusterID: packet.probeClusterID))
        link.enqueue(packet, nowNs: nowNs)
    }

    private mutating func deliver(_ packet: SimulatedPacket, arrivalNs: Int64) {
        receiver.receive(packet, arrivalNs: arrivalNs)
        deliveredBytesSinceSample += packet.sizeBytes
        result.delivered.append(
            SimulationResult.DeliveredPacket(
                sendTimeNs: packet.sendTimeNs, kind: packet.kind,
                queueDelayNs: packet.serviceStartNs - packet.sendTimeNs,
                pacerDelayNs: packet.sendTimeNs - packet.enqueueTimeNs))
    }

    private mutating func apply(_ update: NetworkControlUpdate) {
        if let estimate = update.estimate {
            pacer.setRates(pacingRateBps: estimate.pacingRateBps, paddingRateBps: estimate.paddingRateBps, nowNs: nowNs)
        }
        for cluster in update.probeClusters {
            result.probeClusters.append(cluster)
            pacer.addProbeCluster(cluster, nowNs: nowNs)
        }
        if let trace = update.trace {
            result.traces.append(trace)
        }
    }
}
