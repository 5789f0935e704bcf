import CongestionControl
import MediaCore
import Pacing
import RTCP
import RTP
import RTPSession

/// Runs one `LinkScenario` on a virtual clock through the real `SendSession`: a simulated
/// encoder follows the session's commands, the packets the session writes cross a bottleneck
/// (a drop-tail queue, random loss, propagation delay) to a simulated receiver, whose RTCP
/// (transport-wide feedback, receiver reports, NACK, PLI, REMB) comes back a propagation delay
/// later. The session is driven as `RTPVideoSender`'s send loop drives it, so what the loop
/// wires is what is tested. Deterministic: the same scenario gives the same result.
struct NetworkSimulation {
    static let mediaSSRC: UInt32 = 0x5EED_0001
    static let rtxSSRC: UInt32 = 0x5EED_0002
    static let rtxPayloadType: UInt8 = 97
    static let fecPayloadTypes = FECPayloadTypes(red: 98, ulpfec: 99)
    static let transportWideExtensionID: UInt8 = 3

    private let scenario: LinkScenario
    private let endNs: Int64
    private var nowNs: Int64 = 0
    private let session: SendSession
    private let batch = RTPPacketBatch(slotCapacity: 1_200, initialSlotCount: SendSession.maximumBatchCount)
    private var reportBuffer = [UInt8](repeating: 0, count: 1_500)
    private var encoder: SimulatedEncoder
    private var link: SimulatedLink
    private var receiver: SimulatedReceiver
    private var result = SimulationResult()

    /// Packets past the bottleneck, the sender's reports on their way in, the receiver's RTCP on
    /// its way back (FIFOs: every datagram takes the same propagation delay).
    private var packetsInFlight: [(arrivalNs: Int64, packet: SimulatedPacket)] = []
    private var reportsInFlight: [(arrivalNs: Int64, datagram: [UInt8])] = []
    private var feedbackInFlight: [(arrivalNs: Int64, datagram: [UInt8])] = []
    private var highestMediaSequenceNumber: UInt16?
    /// The sequence numbers FEC packets went out with, to tell a copy of one.
    private var fecSequenceNumbers = Set<UInt16>()
    private var nextSampleNs: Int64 = SimulationResult.sampleIntervalNs
    private var deliveredBytesSinceSample = 0

    static func run(_ scenario: LinkScenario) -> SimulationResult {
        var simulation = NetworkSimulation(scenario: scenario)
        simulation.run()
        return simulation.result
    }

    private init(scenario: LinkScenario) {
        self.scenario = scenario
        endNs = Int64(scenario.durationSeconds * 1e9)
        let usesTransportFeedback = if case .transportWide = scenario.feedback { true } else { false }
        let tuning = SenderTuning(
            retransmission: scenario.retransmission, fec: scenario.fec,
            congestionControl: CongestionControllerConfiguration(
                startBitrateBps: scenario.startBitrateBps, maxBitrateBps: scenario.maxBitrateBps),
            pacing: PacerConfiguration(isPacingEnabled: scenario.isPacingEnabled))
        let media = RTPSessionParameters(ssrc: Self.mediaSSRC, initialSequenceNumber: 1_000, timestampOffset: 0, initialPictureID: 0)
        let configuration = SendSessionConfiguration(
            tuning: tuning, encodings: [EncodingStreams(media: media, rtxSSRC: Self.rtxSSRC)], payloadType: 96,
            rtxPayloadType: Self.rtxPayloadType,
            extensions: HeaderExtensionIDs(transportWideSequenceNumber: usesTransportFeedback ? Self.transportWideExtensionID : nil),
            fec: scenario.fec == .off ? nil : Self.fecPayloadTypes)
        do {
            session = try SendSession(
                configuration: configuration, ntpClock: NTPClock(monotonicNs: 0, unixTimeNs: 1_700_000_000_000_000_000),
                randomSeed: scenario.seed)
        } catch {
            preconditionFailure("the simulation's session is valid: \(error)")
        }
        encoder = SimulatedEncoder(
            startBitrateBps: scenario.startBitrateBps, keyframeIntervalNs: scenario.keyframeIntervalNs, seed: scenario.seed &+ 1)
        link = SimulatedLink(
            capacitySchedule: scenario.capacity.map { (Int64($0.atSeconds * 1e9), $0.kbps * 1000) },
            propagationDelayNs: scenario.propagationDelayNs, queueLimitNs: scenario.queueLimitNs,
            randomLossFraction: scenario.randomLossFraction,
            outageNs: scenario.outage.map { Int64($0.fromSeconds * 1e9)..<Int64($0.toSeconds * 1e9) }, seed: scenario.seed)
        let feedbackIntervalNs: Int64? = if case .transportWide(let intervalNs) = scenario.feedback { intervalNs } else { nil }
        receiver = SimulatedReceiver(configuration: SimulatedReceiver.Configuration(
            mediaSSRC: Self.mediaSSRC, rtxPayloadType: Self.rtxPayloadType, fec: scenario.fec == .off ? nil : Self.fecPayloadTypes,
            transportWideExtensionID: usesTransportFeedback ? Self.transportWideExtensionID : nil,
            feedbackIntervalNs: feedbackIntervalNs, rembBps: scenario.rembBps, isNACKing: scenario.retransmission != .off,
            nackRetryIntervalNs: scenario.nackRetryIntervalNs,
            jitterBufferNs: scenario.jitterBufferNs, pliFloodIntervalNs: scenario.pliFloodIntervalNs,
            silenceNs: scenario.silence.map { Int64($0.fromSeconds * 1e9)..<Int64($0.toSeconds * 1e9) }))
    }

    private mutating func run() {
        var stepsAtThisTime = 0
        while nowNs < endNs {
            let previousNs = nowNs
            nowNs = nextEventNs()
            stepsAtThisTime = nowNs == previousNs ? stepsAtThisTime + 1 : 0
            if stepsAtThisTime > 100 {
                // Something stays due that no step does: a real send loop would spin here. Time
                // goes on as it would, and the spin is counted.
                nowNs += 1_000_000
                result.spinningMs += 1
                stepsAtThisTime = 0
            }
            step()
        }
        result.droppedByQueue = link.droppedByQueue
        result.droppedAtRandom = link.droppedAtRandom
        result.framesEncoded = encoder.encodedFramesNs.count
        // Frames captured too late to play before the end are not counted against the receiver.
        let lastPlayableNs = endNs - scenario.jitterBufferNs - scenario.propagationDelayNs - 100_000_000
        result.framesPlayable = encoder.encodedFramesNs.filter { $0 <= lastPlayableNs }.count
        result.framesSkipped = encoder.framesSkipped
        result.framesIntact = receiver.framesIntact
        result.framesBroken = receiver.framesBroken
        result.frameDelaysNs = receiver.frameDelaysNs
        result.keyframes = encoder.keyframes
        result.nacksSent = receiver.nacksSent
        result.plisSent = receiver.plisSent
        result.packetsRecoveredByFEC = receiver.packetsRecoveredByFEC
        session.drainOutputs { if case .sink(.statistics(let statistics)) = $0 { result.statistics = statistics } }
    }

    private func nextEventNs() -> Int64 {
        let candidates: [Int64?] = [
            encoder.nextFrameNs, session.nextDeadlineNs(nowNs: nowNs), link.nextDepartureNs, packetsInFlight.first?.arrivalNs,
            reportsInFlight.first?.arrivalNs, feedbackInFlight.first?.arrivalNs, receiver.nextEventNs, nextSampleNs, endNs,
        ]
        return max(nowNs, candidates.compactMap { $0 }.min()!)
    }

    /// Handles everything due at `nowNs`: the network and the receiver first, then the sender
    /// as its send loop runs: feedback, frames, the tick, packets, the report, the outputs.
    private mutating func step() {
        while let departureNs = link.nextDepartureNs, departureNs <= nowNs {
            let (packet, arrivalNs) = link.departHead()
            packetsInFlight.append((arrivalNs, packet))
        }
        while let first = packetsInFlight.first, first.arrivalNs <= nowNs {
            packetsInFlight.removeFirst()
            deliver(first.packet, arrivalNs: first.arrivalNs)
        }
        while let first = reportsInFlight.first, first.arrivalNs <= nowNs {
            reportsInFlight.removeFirst()
            receiver.receiveReport(first.datagram, arrivalNs: first.arrivalNs)
        }
        if receiver.nextEventNs <= nowNs {
            for datagram in receiver.takeFeedback(nowNs: nowNs) {
                feedbackInFlight.append((nowNs + scenario.propagationDelayNs, datagram))
            }
        }
        while let first = feedbackInFlight.first, first.arrivalNs <= nowNs {
            feedbackInFlight.removeFirst()
            if session.admitFeedback(nowNs: nowNs) {
                first.datagram.withUnsafeBytes { session.receiveRTCP($0, nowNs: nowNs) }
            }
        }
        if encoder.nextFrameNs <= nowNs, let frame = encoder.nextFrame(nowNs: nowNs) {
            session.send(frame, nowNs: nowNs)
        }
        session.tick(nowNs: nowNs)
        while session.writeDuePackets(into: batch, nowNs: nowNs) > 0 {
            for index in 0..<batch.count { link.enqueue(packet(Array(batch[index])), nowNs: nowNs) }
            session.packetsLeft(batch, atNs: nowNs)
        }
        if let length = reportBuffer.withUnsafeMutableBytes({ session.writeDueReport(into: $0, nowNs: nowNs) }) {
            reportsInFlight.append((nowNs + scenario.propagationDelayNs, Array(reportBuffer[..<length])))
            session.reportLeft(wireBytes: length)
        }
        session.drainOutputs { output in
            switch output {
            case .encoder(let command): encoder.apply(command)
            case .trace(let record): result.traces.append(record)
            case .sink(.statistics(let statistics)): result.statistics = statistics
            case .sink(.keyframeRequested): result.keyframeRequestsForwarded += 1
            case .sink: break
            }
        }
        if nextSampleNs <= nowNs {
            nextSampleNs += SimulationResult.sampleIntervalNs
            let estimate = session.estimate
            result.samples.append(SimulationResult.Sample(
                timeNs: nowNs, targetBps: estimate.targetBitrateBps, encoderBps: encoder.targetBps,
                capacityBps: link.capacityBps(atNs: nowNs),
                deliveredBps: Int64(deliveredBytesSinceSample) * 8 * 1_000_000_000 / SimulationResult.sampleIntervalNs,
                isEncoderPaused: encoder.isPaused))
            deliveredBytesSinceSample = 0
        }
    }

    /// What the session wrote, as it enters the link: media, or a copy of a packet sent before.
    private mutating func packet(_ bytes: [UInt8]) -> SimulatedPacket {
        let ssrc = UInt32(bytes[8]) << 24 | UInt32(bytes[9]) << 16 | UInt32(bytes[10]) << 8 | UInt32(bytes[11])
        let sequenceNumber = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
        let timestamp = UInt32(bytes[4]) << 24 | UInt32(bytes[5]) << 16 | UInt32(bytes[6]) << 8 | UInt32(bytes[7])
        var isCopy = ssrc == Self.rtxSSRC
        if !isCopy {
            isCopy = highestMediaSequenceNumber.map { Int16(bitPattern: sequenceNumber &- $0) <= 0 } ?? false
            if !isCopy { highestMediaSequenceNumber = sequenceNumber }
        }
        if isCopy {
            result.copiesSentNs.append(nowNs)
            if fecSequenceNumbers.contains(copiedSequenceNumber(bytes, isRTX: ssrc == Self.rtxSSRC) ?? sequenceNumber) {
                result.fecCopiesSent += 1
            }
        } else if isFEC(bytes) {
            fecSequenceNumbers.insert(sequenceNumber)
        } else {
            result.mediaBytesSent += bytes.count
        }
        return SimulatedPacket(
            bytes: bytes, isCopy: isCopy, captureTimeNs: Int64(timestamp) * 1_000_000_000 / 90_000, sendTimeNs: nowNs)
    }

    /// The sequence number a copy repeats: an RTX packet's OSN (RFC 4588), else its own.
    private func copiedSequenceNumber(_ bytes: [UInt8], isRTX: Bool) -> UInt16? {
        guard isRTX, let header = try? RTPHeader(parsing: bytes), bytes.count >= header.serializedSize + 2 else { return nil }
        return UInt16(bytes[header.serializedSize]) << 8 | UInt16(bytes[header.serializedSize + 1])
    }

    /// Whether `bytes` is an ULPFEC packet in RED: the RED header follows the fixed header and
    /// the extensions.
    private func isFEC(_ bytes: [UInt8]) -> Bool {
        guard bytes[1] & 0x7F == Self.fecPayloadTypes.red, let header = try? RTPHeader(parsing: bytes) else { return false }
        return bytes.count > header.serializedSize && bytes[header.serializedSize] & 0x7F == Self.fecPayloadTypes.ulpfec
    }

    private mutating func deliver(_ packet: SimulatedPacket, arrivalNs: Int64) {
        receiver.receive(packet.bytes, arrivalNs: arrivalNs)
        deliveredBytesSinceSample += packet.sizeBytes
        result.delivered.append(SimulationResult.DeliveredPacket(
            sendTimeNs: packet.sendTimeNs, isCopy: packet.isCopy, queueDelayNs: packet.serviceStartNs - packet.sendTimeNs,
            pacerDelayNs: packet.sendTimeNs - packet.captureTimeNs))
    }
}
