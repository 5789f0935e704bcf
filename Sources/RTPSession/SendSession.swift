import CongestionControl
import Logging
import MediaCore
import Pacing
import RTCP
import RTP

/// The sender's core as a state machine: everything between the encoder and the socket that
/// decides, with no I/O, no thread and no clock of its own, as libwebrtc keeps its
/// `PacingController` apart from the `TaskQueuePacedSender` that runs it.
///
/// It carries one RTP stream per encoding (media, and RTX when repairs go so), each with its
/// SSRC, sequence numbers and history, under one transport-wide sequence, one congestion
/// controller and one pacer, and owns the packet store and the feedback policies.
///
/// Inputs, each with the time passed in: a frame to send (`send`), a feedback datagram
/// (`admitFeedback`, then `receiveRTCP`), a timer (`tick`), the end (`close`). Outputs: the
/// packets due now (`writeDuePackets`, then `packetsLeft` once they left), the RTCP report due
/// now (`writeDueReport`, then `reportLeft`), encoder commands, sink events and trace records
/// (`drainOutputs`), and when it next needs a tick (`nextDeadlineNs`). Its owner does the I/O:
/// SRTP, the socket, the thread (`RTPVideoSender`); a test or a simulation drives it on a
/// virtual clock.
///
/// Packets live in the store from packetization until nothing can ask for them again: the
/// pacer refers to them by slot, each encoding's history keeps sent media for retransmission,
/// and what goes out is a copy, stamped as it leaves. Slots, batches and output buffers are
/// reused, so steady streaming allocates nothing per packet.
public final class SendSession {
    /// How often the congestion controller ticks (libwebrtc: 25 ms).
    public static let controllerIntervalNs: Int64 = 25_000_000
    /// The least time between two statistics reports to the sink.
    public static let statisticsIntervalNs: Int64 = 250_000_000
    /// The RTCP BYE waits this long after the last media packet, so that a receiver reading its
    /// RTCP socket first (ffmpeg does) still reads the last frame before it ends the stream.
    public static let byeGraceNs: Int64 = 50_000_000
    /// Packets one `writeDuePackets` writes at most (one `sendmmsg`).
    public static let maximumBatchCount = 64

    public let configuration: SendSessionConfiguration
    /// Bytes each packet keeps free for what its owner adds on the way out (the SRTP tag).
    public let protectionOverhead: Int
    let logger: Logger
    private let ntpClock: NTPClock

    let store: PacketStore
    var encodings: [OutgoingEncoding]
    /// Each encoder encoding index's place in `encodings`; nil for an encoding not sent.
    private let encodingPositions: [Int?]
    /// The encoder's index of each of `encodings`.
    private let encoderIndexes: [Int]
    var pacer: Pacer
    var congestion: CongestionController
    var hasTransportFeedback = false
    private var nextControllerTickNs: Int64?
    var nextTransportSequenceNumber: Int64 = 0
    var nack = NACKResponder()
    var roundTripTime = RoundTripTimeEstimator()
    var receiverReferenceTimes = ReceiverReferenceTimes()
    private var reportSchedule: RTCPReportSchedule<SplitMix64>
    /// Every feedback datagram costs parsing and may trigger work, so a flood is cut to 1000 a
    /// second (bursts of 200) and the rest counted as rejected; real receivers send tens.
    private var feedbackLimiter = TokenBucket(ratePerSecond: 1_000, burst: 200)
    var lossReports = ReceiverLossTracker()
    var statistics: SenderStatistics
    private var lastStatisticsReportNs: Int64?
    private var pacerQueueTimes = LatencyHistogram()
    /// The copies in the batch written last, until `packetsLeft`.
    private var outgoing: [OutgoingPacket] = []
    private var outputs: [SessionOutput] = []
    private var lastMediaSentNs: Int64?
    /// The encoding whose media left last: padding and keep-alives are its newest packets.
    private var lastMediaEncodingIndex = 0
    /// The report written last, until `reportLeft` says it left.
    private var pendingReport: (ntpTimestamp: NTPTimestamp, writtenNs: Int64)?
    private let fecPolicy: FECPolicy
    /// The FEC in force, from the recent loss and the RTT of the last controller update.
    private var fecProtection = FECPolicy.Protection.none
    private var recentLoss = RecentLoss()
    private var repairShare = RepairShare()
    /// The padding probe asked for: none, one in force, or one that failed (none begins again
    /// until the request is withdrawn).
    private enum PaddingProbeState {
        case idle
        case probing(PaddingProbe)
        case failed
    }

    private var paddingProbe = PaddingProbeState.idle
    /// The slots of the frame being packetized, for its FEC group.
    private var frameSlots: [Int] = []
    /// The interval between frames, smoothed: how many frames an FEC group spans.
    private var frameIntervalNs: Int64 = 33_333_333
    private var lastFrameTimestampNs: Int64?
    private var isClosing = false
    /// Closed, everything sent, BYE written: nothing more will come.
    public private(set) var isFinished = false

    /// - Parameters:
    ///   - protectionOverhead: bytes kept free in every packet for the SRTP tag.
    ///   - ntpClock: the wall-clock times of sender reports and of abs-capture-time, which agree.
    ///   - randomSeed: seeds the RTCP report interval (RFC 3550 §6.3.1); fixed in tests.
    public init(
        configuration: SendSessionConfiguration, protectionOverhead: Int = 0, ntpClock: NTPClock,
        randomSeed: UInt64 = .random(in: .min ... .max), logger: Logger = Logger(label: "camrtp.session")
    ) throws(SendSessionError) {
        try configuration.validate(protectionOverhead: protectionOverhead)
        self.configuration = configuration
        self.protectionOverhead = protectionOverhead
        self.ntpClock = ntpClock
        self.logger = logger
        var random = SplitMix64(state: randomSeed)
        let tuning = configuration.tuning
        encodings = try configuration.encodings.indices.map { index throws(SendSessionError) in
            let rtx: OutgoingEncoding.RTX? = if configuration.usesRTX, let payloadType = configuration.rtxPayloadType,
                let ssrc = configuration.encodings[index].rtxSSRC
            {
                OutgoingEncoding.RTX(payloadType: payloadType, ssrc: ssrc)
            } else {
                nil
            }
            return OutgoingEncoding(
                packetizer: try FramePacketizer(
                    encodingIndex: index, configuration: configuration, protectionOverhead: protectionOverhead, ntpClock: ntpClock),
                rtx: rtx, firstRTXSequenceNumber: .random(in: 0..<(1 << 15), using: &random),
                keyframeRequestIntervalNs: tuning.keyframeRequestIntervalNs)
        }
        let encoderIndexes = configuration.encoderIndexes
        var positions = [Int?](repeating: nil, count: (encoderIndexes.max() ?? 0) + 1)
        for (position, index) in encoderIndexes.enumerated() { positions[index] = position }
        encodingPositions = positions
        self.encoderIndexes = encoderIndexes
        store = PacketStore(
            slotCapacity: tuning.mtu, maximumSlotCount: PacketHistory.maximumPackets * configuration.encodings.count + 4_096)
        pacer = Pacer(
            configuration: tuning.pacing,
            pacingRateBps: Int64(Double(tuning.congestionControl.startBitrateBps) * tuning.congestionControl.pacingFactorBeforeFeedback))
        congestion = CongestionController(configuration: tuning.congestionControl)
        reportSchedule = RTCPReportSchedule(random: random)
        statistics = SenderStatistics(startBitrateKbps: Double(tuning.congestionControl.startBitrateBps) / 1000)
        fecPolicy = FECPolicy(mode: configuration.fec == nil ? .off : tuning.fec)
        frameSlots.reserveCapacity(256)
        outgoing.reserveCapacity(Self.maximumBatchCount)
        outputs.reserveCapacity(64)
    }

    /// The media SSRC of each encoding.
    public var ssrcs: [UInt32] { encodings.map(\.ssrc) }

    /// The congestion controller's rates in force.
    public var estimate: NetworkEstimate { congestion.estimate }

    // MARK: Inputs

    /// Packetizes a frame from the encoder into the store and queues its packets for the pacer.
    /// `frame.encodingIndex` picks the encoding; a frame of an encoding the session does not send
    /// (one the peer declined) costs a look-up and nothing else. A frame the store cannot hold
    /// (only a path stalled for seconds fills it) is not sent: it is lost like one the network
    /// dropped, and the receiver's PLI will bring a keyframe.
    public func send(_ frame: EncodedFrame, nowNs: Int64) {
        guard encodingPositions.indices.contains(frame.encodingIndex), let index = encodingPositions[frame.encodingIndex] else {
            return
        }
        let plan: FramePacketizer.FramePlan
        do {
            plan = try encodings[index].packetizer.plan(frame, nowNs: nowNs)
        } catch {
            logger.info("frame not sent: \(error)")
            return
        }
        guard store.canStore(plan.split.packetCount) else {
            logger.info("packet store full: a frame of \(plan.split.packetCount) packets is not sent")
            return
        }
        if index == 0 { measureFrameInterval(frame.timestampNs) }
        if frame.isKeyframe { encodings[index].keyframes.keyframeSent(atNs: nowNs) }
        if nextControllerTickNs == nil {
            // Before the first packets are queued, so that the start-up probes can use them.
            nextControllerTickNs = nowNs
            apply(congestion.start(nowNs: nowNs), nowNs: nowNs)
        }
        frameSlots.removeAll(keepingCapacity: true)
        encodings[index].packetizer.write(frame, plan: plan, nowNs: nowNs, into: store) { slot in
            enqueue(slot, kind: .media, nowNs: nowNs)
            frameSlots.append(slot)
        }
        if let fec = configuration.fec { protect(encodingIndex: index, frame: frame, payloadType: fec.ulpfec, nowNs: nowNs) }
        reportSchedule.mediaStarted(atNs: nowNs)
    }

    /// Whether a feedback datagram arriving at `nowNs` may be read at all (the rate limit);
    /// one refused is counted as rejected.
    public func admitFeedback(nowNs: Int64) -> Bool {
        guard feedbackLimiter.admit(nowNs: nowNs) else {
            statistics.rtcpReceived.rejected += 1
            return false
        }
        return true
    }

    /// Counts feedback refused before it could be read: from another host, failing SRTCP
    /// authentication, not RTCP.
    public func refuseFeedback(count: Int = 1) {
        statistics.rtcpReceived.rejected += count
    }

    /// Fills up to `kbps` with padding from now on and watches the feedback of what follows
    /// (`PaddingProbe`); a new rate while probing moves the goal of the same probe, 0 ends it. A
    /// probe that fails stops its padding and says so (`EncoderCommand.paddingProbeFailed`), and
    /// none begins again until the request has gone back to 0. Without transport-wide feedback
    /// nothing can be judged, and nothing is padded.
    public func setPaddingProbe(kbps: Int, nowNs: Int64) {
        guard configuration.extensions.transportWideSequenceNumber != nil else { return }
        let goalBps = Int64(max(0, kbps)) * 1000
        let paddedBps = paddingProbeGoalBps
        switch paddingProbe {
        case _ where goalBps == 0:
            paddingProbe = .idle
        case .idle:
            paddingProbe = .probing(PaddingProbe(goalBps: goalBps, firstSequenceNumber: nextTransportSequenceNumber))
        case .probing(var probe):
            probe.goalBps = goalBps
            paddingProbe = .probing(probe)
        case .failed:
            break
        }
        if paddingProbeGoalBps != paddedBps { setPacerRates(nowNs: nowNs) }
    }

    /// What the padding probe in force fills up to; 0 without one.
    private var paddingProbeGoalBps: Int64 {
        if case .probing(let probe) = paddingProbe { probe.goalBps } else { 0 }
    }

    /// The periodic work: deferred keyframe requests, the congestion controller's tick, history
    /// expiry, statistics for the sink.
    public func tick(nowNs: Int64) {
        for index in encodings.indices where encodings[index].keyframes.takeDueRequest(nowNs: nowNs) {
            forwardKeyframeRequest(encodingIndex: index, source: .pli)
        }
        if let due = nextControllerTickNs, nowNs >= due {
            nextControllerTickNs = nowNs + Self.controllerIntervalNs
            apply(congestion.process(nowNs: nowNs), nowNs: nowNs)
            for index in encodings.indices {
                encodings[index].history.expire(nowNs: nowNs, roundTripTimeNs: currentRoundTripTimeNs, store: store)
            }
        }
        reportStatistics(nowNs: nowNs, force: false)
    }

    /// No more frames: what is queued is sent, then BYE, and the session is finished.
    public func close() {
        isClosing = true
    }

    // MARK: Outputs

    /// When the session next has something to do (a packet due, a report, a deferred keyframe
    /// request, the controller's tick, BYE); nil when only an input can give it work.
    public func nextDeadlineNs(nowNs: Int64) -> Int64? {
        var deadline = earliest(pacer.nextSendTimeNs(nowNs: nowNs), reportSchedule.nextReportNs)
        for encoding in encodings { deadline = earliest(deadline, encoding.keyframes.nextDeadlineNs) }
        return earliest(deadline, earliest(nextControllerTickNs, byeDeadlineNs))
    }

    /// Empties `batch` and writes into it the packets due at `nowNs`, at most
    /// `maximumBatchCount`: retransmissions first, then media, then padding and keep-alives, each a
    /// copy of its stored packet (an RTX packet when repairs go so) stamped with abs-send-time and
    /// the next transport-wide sequence number. The owner protects them in place, sends them and
    /// calls `packetsLeft`, and calls again until this returns 0.
    public func writeDuePackets(into batch: RTPPacketBatch, nowNs: Int64) -> Int {
        precondition(outgoing.isEmpty, "the previous batch was not reported with packetsLeft")
        batch.removeAll()
        if pacer.nextSendTimeNs(nowNs: nowNs).map({ $0 <= nowNs }) ?? false {
            addPaddingIfNeeded(nowNs: nowNs)
            while outgoing.count < Self.maximumBatchCount, let paced = pacer.dequeue(nowNs: nowNs) {
                write(paced, into: batch, nowNs: nowNs)
                pacerQueueTimes.record(nanoseconds: nowNs - paced.enqueueTimeNs)
            }
        }
        // Once the pacer has released all it will, whether the window is full decides the encoder.
        if outgoing.isEmpty { updateCongestionState() }
        return outgoing.count
    }

    /// The batch from `writeDuePackets` left at `sentNs`, in its protected form (the lengths the
    /// controller counts). Packets the socket dropped count as sent and lost. The history, the
    /// congestion controller and the sender-report counts learn what went.
    public func packetsLeft(_ batch: RTPPacketBatch, atNs sentNs: Int64) {
        precondition(batch.count == outgoing.count, "a batch of \(batch.count) packets, \(outgoing.count) written")
        var overheadPackets = 0
        var overheadBytes = 0
        for (index, packet) in outgoing.enumerated() {
            let slot = packet.slot
            let wireBytes = batch.length(at: index)
            let encodingIndex = store[slot].encodingIndex
            if store[slot].firstSentNs == nil {
                store[slot].firstSentNs = sentNs
                encodings[encodingIndex].history.append(slot, store: store)
            }
            congestion.onPacketSent(SentPacket(
                sequenceNumber: packet.transportSequenceNumber, sendTimeNs: sentNs, sizeBytes: wireBytes, kind: packet.kind,
                probeClusterID: packet.probeClusterID))
            if packet.probeClusterID != nil { statistics.probesSent += 1 }
            let entry = store[slot]
            if packet.kind != .padding {
                repairShare.record(bytes: wireBytes, isRepair: entry.isFEC || packet.kind == .retransmission, atNs: sentNs)
            }
            if packet.kind == .media || !configuration.usesRTX {  // On the media SSRC.
                encodings[encodingIndex].senderPacketCount += 1
                encodings[encodingIndex].senderOctetCount += entry.length - entry.headerLength
            }
            if entry.isFEC {
                statistics.fecPacketsSent += 1
                statistics.fecBytesSent += wireBytes
                overheadPackets += 1
                overheadBytes += wireBytes
            } else if packet.kind == .media {
                lastMediaSentNs = sentNs
                lastMediaEncodingIndex = encodingIndex
                if let delivered = encodings[encodingIndex].mediaPacketLeft(entry, wireBytes: wireBytes, sentNs: sentNs) {
                    outputs.append(.sink(delivered))
                }
            } else {
                if packet.kind == .retransmission {
                    statistics.packetsRetransmitted += 1
                    statistics.bytesRetransmitted += wireBytes
                }
                overheadPackets += 1
                overheadBytes += wireBytes
            }
            store.releaseIfUnused(slot)
        }
        if overheadPackets > 0 { outputs.append(.sink(.overheadSent(packets: overheadPackets, bytes: overheadBytes))) }
        outgoing.removeAll(keepingCapacity: true)
    }

    /// The RTCP report due at `nowNs`, written into `buffer`: an SR for every encoding and one
    /// SDES with their CNAME, with BYE once the session is closed and its last packet left
    /// `byeGraceNs` ago; nil when none is due. The owner protects and sends it, then calls
    /// `reportLeft`. After the BYE (or at the end of a session that never sent media) the session
    /// is finished, and its final statistics are in the outputs.
    public func writeDueReport(into buffer: UnsafeMutableRawBufferPointer, nowNs: Int64) -> Int? {
        guard !isFinished else { return nil }
        if isClosing, pacer.queuedPacketCount == 0, lastMediaSentNs == nil {
            finish(nowNs: nowNs)
            return nil
        }
        if let byeAtNs = byeDeadlineNs, nowNs >= byeAtNs {
            defer { finish(nowNs: nowNs) }
            return writeReport(bye: true, into: buffer, nowNs: nowNs)
        }
        guard reportSchedule.takeDueReport(nowNs: nowNs) else { return nil }
        return writeReport(bye: false, into: buffer, nowNs: nowNs)
    }

    /// The report from `writeDueReport` left, `wireBytes` long as sent: receiver reports that echo
    /// it now give the RTT.
    public func reportLeft(wireBytes: Int) {
        guard let report = pendingReport else { return }
        pendingReport = nil
        roundTripTime.senderReportSent(middleBits: report.ntpTimestamp.middle32Bits, atNs: report.writtenNs)
        outputs.append(.sink(.overheadSent(packets: 1, bytes: wireBytes)))
    }

    /// Hands every output since the last drain to `body`, in order, and forgets them.
    public func drainOutputs(_ body: (SessionOutput) -> Void) {
        for output in outputs { body(output) }
        outputs.removeAll(keepingCapacity: true)
    }

    // MARK: Shared with the feedback and report handling

    /// The RTT in use: from receiver reports, else from the controller, else 0.
    var currentRoundTripTimeNs: Int64 {
        roundTripTime.lastNs ?? congestion.estimate.roundTripTimeNs
    }

    /// Queues a copy of `slot` for the pacer, charged at its size on the wire; returns that size.
    @discardableResult
    func enqueue(_ slot: Int, kind: PacketKind, nowNs: Int64) -> Int {
        store.queueCopy(slot)
        let sizeBytes = store[slot].length + protectionOverhead + (kind == .media ? 0 : configuration.retransmissionOverhead)
        pacer.enqueue(slot, sizeBytes: sizeBytes, kind: kind, nowNs: nowNs)
        return sizeBytes
    }

    /// Asks the encoder for a keyframe of the encoding at `encodingIndex` in `encodings` and says so.
    func forwardKeyframeRequest(encodingIndex: Int, source: KeyframeRequestSource) {
        statistics.keyframesOnRequest += 1
        outputs.append(.encoder(.keyframe(encodingIndex: encoderIndexes[encodingIndex])))
        outputs.append(.sink(.keyframeRequested(source)))
    }

    /// Applies the controller's rates: the pacer's pace, the FEC in force, the encoder's target
    /// (what protection leaves of the estimate: the share FEC and retransmissions took of the
    /// last second, or the FEC now in force if that is more), probe clusters, the statistics;
    /// and pushback when the window is full.
    func apply(_ update: NetworkControlUpdate, nowNs: Int64) {
        let protectionChanged = updateFECProtection(nowNs: nowNs)
        if update.estimate != nil {
            setPacerRates(nowNs: nowNs)
        }
        if update.estimate != nil || protectionChanged {
            let estimate = congestion.estimate
            let plannedShare = fecProtection.delta / (1 + fecProtection.delta)
            let share = max(plannedShare, repairShare.share(atNs: nowNs))
            let mediaBps = Double(estimate.encoderBitrateBps) * (1 - share)
            outputs.append(.encoder(.targetBitrate(kbps: max(1, Int((mediaBps + 500) / 1000)))))
            statistics.targetBitrateKbps.record(Double(estimate.targetBitrateBps) / 1000)
        }
        if configuration.extensions.transportWideSequenceNumber != nil {
            for cluster in update.probeClusters { pacer.addProbeCluster(cluster, nowNs: nowNs) }
        }
        if let trace = update.trace { outputs.append(.trace(trace)) }
        updateCongestionState()
    }

    /// The FEC the policy calls for after every controller update, not only those that move a
    /// rate: a loss report or an RTT that leaves every rate where it was (a stream at its maximum
    /// rate, a receiver that sends only receiver reports) still changes it. Whether it changed.
    private func updateFECProtection(nowNs: Int64) -> Bool {
        let estimate = congestion.estimate
        let bytesPerFrame = Double(estimate.encoderBitrateBps) / 8 * Double(frameIntervalNs) / 1e9
        recentLoss.record(estimate.lossFraction, atNs: nowNs)
        let protection = fecPolicy.protection(
            lossFraction: recentLoss.maximum, roundTripTimeNs: currentRoundTripTimeNs, bytesPerFrame: bytesPerFrame)
        defer {
            fecProtection = protection
            statistics.fecProtection = protection.delta
        }
        return protection != fecProtection
    }

    /// The controller's pacing and padding rates, with a padding probe's goal as the floor.
    private func setPacerRates(nowNs: Int64) {
        let estimate = congestion.estimate
        let paddingBps = max(estimate.paddingRateBps, paddingProbeGoalBps)
        pacer.setRates(pacingRateBps: estimate.pacingRateBps, paddingRateBps: paddingBps, nowNs: nowNs)
    }

    /// Transport-wide feedback judges the padding probe in force.
    func judgePaddingProbe(_ packets: [TransportFeedback.PacketReport], nowNs: Int64) {
        guard case .probing(var probe) = paddingProbe else { return }
        guard probe.record(packets) else {
            paddingProbe = .probing(probe)
            return
        }
        paddingProbe = .failed
        outputs.append(.encoder(.paddingProbeFailed))
        setPacerRates(nowNs: nowNs)
    }

    // MARK: FEC

    /// Adds the frame's packets to its encoding's FEC group and writes the group's ULPFEC
    /// packets when it is due (`ULPFECGroup`), at the share in force for this kind of frame; a
    /// frame that gets no FEC empties the group.
    private func protect(encodingIndex index: Int, frame: EncodedFrame, payloadType: UInt8, nowNs: Int64) {
        let share = frame.isKeyframe ? fecProtection.key : fecProtection.delta
        guard share > 0 else {
            encodings[index].fecGroup.removeAll()
            return
        }
        for slot in frameSlots {
            if encodings[index].fecGroup.isFull {
                writeFEC(encodingIndex: index, share: share, payloadType: payloadType, timestampNs: frame.timestampNs, nowNs: nowNs)
            }
            encodings[index].fecGroup.append(slot, sequenceNumber: store[slot].sequenceNumber)
        }
        encodings[index].fecGroup.frameEnded()
        if encodings[index].fecGroup.isDue(
            share: share, isKeyframe: frame.isKeyframe, roundTripTimeNs: currentRoundTripTimeNs, frameIntervalNs: frameIntervalNs)
        {
            writeFEC(encodingIndex: index, share: share, payloadType: payloadType, timestampNs: frame.timestampNs, nowNs: nowNs)
        }
    }

    /// The group starts over only once its FEC is written: emptied while a copy of it lived, its
    /// arrays would be copied, an allocation per FEC group.
    private func writeFEC(encodingIndex index: Int, share: Double, payloadType: UInt8, timestampNs: Int64, nowNs: Int64) {
        let count = encodings[index].fecGroup.fecCount(share: share)
        if store.canStore(count), encodings[index].fecGroup.isIntact(in: store) {
            let slots = encodings[index].fecGroup.slots
            encodings[index].packetizer.writeFEC(
                count: count, protecting: slots, timestampNs: timestampNs, payloadType: payloadType, into: store
            ) { slot in
                enqueue(slot, kind: .media, nowNs: nowNs)
            }
        }
        encodings[index].fecGroup.removeAll()
    }

    /// The frame interval of encoding 0, smoothed over about eight frames.
    private func measureFrameInterval(_ timestampNs: Int64) {
        defer { lastFrameTimestampNs = timestampNs }
        guard let last = lastFrameTimestampNs, timestampNs > last, timestampNs - last < 1_000_000_000 else { return }
        frameIntervalNs += (timestampNs - last - frameIntervalNs) / 8
    }

    // MARK: Egress

    /// Writes the copy of `paced` that goes out now into the batch: the media packet itself (in
    /// RED, RFC 2198, on its first send when FEC is agreed, as its FEC packets are), or a copy
    /// of it (the same bytes again, or RTX with the RID relabelled as repaired), with the
    /// send-time extensions stamped.
    private func write(_ paced: PacedPacket, into batch: RTPPacketBatch, nowNs: Int64) {
        let slot = paced.handle
        store.takeQueuedCopy(slot)
        let entry = store[slot]
        let original = store.packet(slot)
        let rtx = paced.kind == .media ? nil : encodings[entry.encodingIndex].takeRTXSequenceNumber()
        let red = paced.kind == .media ? configuration.fec?.red : nil
        batch.append { (buffer: UnsafeMutableRawBufferPointer) -> Int in
            if let red {
                return REDHeader.encapsulate(original, headerLength: entry.headerLength, redPayloadType: red, into: buffer)
            }
            guard let rtx else {
                UnsafeMutableRawBufferPointer(rebasing: buffer[0..<original.count]).copyMemory(from: original)
                return original.count
            }
            do throws(WireFormatError) {
                return try RTXPacket.write(
                    retransmitting: original, ssrc: rtx.ssrc, payloadType: rtx.payloadType, sequenceNumber: rtx.sequenceNumber,
                    into: buffer)
            } catch {
                preconditionFailure("stored packets are whole RTP packets with room for RTX: \(error)")
            }
        }
        let index = batch.count - 1
        let packet = UnsafeMutableRawBufferPointer(rebasing: batch.slot(at: index)[0..<batch.length(at: index)])
        if rtx != nil { encodings[entry.encodingIndex].packetizer.stream.relabelAsRepair(packet) }
        if let offset = entry.absoluteSendTimeOffset {
            AbsoluteSendTime(timeNs: nowNs).patch(packet, atByteOffset: offset)
        }
        let transportSequenceNumber = nextTransportSequenceNumber
        nextTransportSequenceNumber += 1
        if let offset = entry.transportSequenceNumberOffset {
            TransportWideSequenceNumber(value: UInt16(truncatingIfNeeded: transportSequenceNumber)).patch(packet, atByteOffset: offset)
        }
        if paced.kind == .media, configuration.fec != nil {
            keepStamp(at: entry.absoluteSendTimeOffset, size: AbsoluteSendTime.dataCount, of: slot, sentAs: packet)
            keepStamp(at: entry.transportSequenceNumberOffset, size: TransportWideSequenceNumber.dataCount, of: slot, sentAs: packet)
        }
        outgoing.append(OutgoingPacket(
            slot: slot, kind: paced.kind, transportSequenceNumber: transportSequenceNumber, probeClusterID: paced.probeClusterID))
    }

    /// With FEC agreed, keeps a send-time extension stamped on a media packet's first send in the
    /// stored packet, and in the ULPFEC packet protecting it if that was made over the packet
    /// unstamped and has not left (it follows its media in the pacer). RFC 5109 §7 protects the
    /// packet as sent, so that a packet rebuilt from FEC is the one that was lost; FEC made after
    /// the packet left reads it stamped from the store. Copies sent again are stamped anew.
    private func keepStamp(at offset: Int?, size: Int, of slot: Int, sentAs sent: UnsafeMutableRawBufferPointer) {
        guard let offset else { return }
        let stamped = UnsafeRawBufferPointer(rebasing: sent[offset..<(offset + size)])
        let stored = UnsafeMutableRawBufferPointer(rebasing: store.buffer(slot)[offset..<(offset + size)])
        if let fec = store[slot].protectingFEC, store[fec.slot].isFEC, store[fec.slot].sequenceNumber == fec.sequenceNumber,
            store[fec.slot].queuedCopies > 0
        {
            let parity = UnsafeMutableRawBufferPointer(
                rebasing: store.buffer(fec.slot)[(fec.bodyOffset + offset - RTPHeader.fixedSize)...])
            ULPFECEncoder.xor(stamped, into: parity)
            ULPFECEncoder.xor(UnsafeRawBufferPointer(stored), into: parity)
        }
        stored.copyMemory(from: stamped)
    }

    /// Probing, padding and keep-alives: the pacer asks for bytes when the controller wants more
    /// data on the wire than the encoder gives, and for one packet every 500 ms while the
    /// encoder is paused for congestion. They are made of real media, the newest packets in the
    /// history sent again (FEC packets left out, as for NACKs), which every receiver treats as
    /// duplicates (RTX with `rtx`). With retransmission off only the keep-alive goes: without it
    /// a paused encoder whose last packets were lost would wait for feedback for ever. Nothing goes before the receiver has
    /// sent transport feedback: one that does not (ffmpeg) would take the copies for new
    /// packets. The start-up probes use the first keyframe's packets instead.
    private func addPaddingIfNeeded(nowNs: Int64) {
        let requested = pacer.paddingNeeded(nowNs: nowNs)
        var needed = hasTransportFeedback && configuration.tuning.retransmission != .off ? requested : 0
        if needed == 0 && hasTransportFeedback && pacer.isKeepAliveDue(nowNs: nowNs) {
            needed = 1
        }
        for slot in encodings[lastMediaEncodingIndex].history.newest(8) where needed > 0 && !store[slot].isFEC {
            needed -= enqueue(slot, kind: .padding, nowNs: nowNs)
        }
        if requested > 0 && pacer.queuedPacketCount == 0 { pacer.paddingUnavailable() }
    }

    /// Frames are dropped before encoding while more than the congestion window is in flight.
    private func updateCongestionState() {
        let estimate = congestion.estimate
        let congested = estimate.congestionWindowBytes.map { estimate.bytesInFlight + pacer.queuedBytes > $0 } ?? false
        guard congested != pacer.isCongested else { return }
        pacer.isCongested = congested
        outputs.append(.encoder(.networkCongested(congested)))
    }

    // MARK: Reports

    /// When BYE goes: once closed and the pacer is empty, `byeGraceNs` after the last media packet.
    private var byeDeadlineNs: Int64? {
        guard isClosing, pacer.queuedPacketCount == 0, let lastMediaSentNs else { return nil }
        return lastMediaSentNs + Self.byeGraceNs
    }

    /// SR + SDES CNAME (RFC 3550 §6.4.1, §6.5), XR with DLRR (RFC 3611 §4.5) when receivers sent
    /// their reference times, and BYE (§6.6) when the stream ends. The SR's NTP time is
    /// remembered with our send time, so that receiver reports give the RTT.
    private func writeReport(bye: Bool, into buffer: UnsafeMutableRawBufferPointer, nowNs: Int64) -> Int? {
        let ntpTimestamp = ntpClock.timestamp(atMonotonicNs: nowNs)
        let reports = encodings.map { encoding in
            RTCPSenderReport(
                ssrc: encoding.ssrc, ntpTimestamp: ntpTimestamp,
                rtpTimestamp: encoding.packetizer.stream.clock.rtpTimestamp(forNs: nowNs),
                packetCount: UInt32(truncatingIfNeeded: encoding.senderPacketCount),
                octetCount: UInt32(truncatingIfNeeded: encoding.senderOctetCount))
        }
        do {
            let extendedReport = receiverReferenceTimes.takeAnswer(nowNs: nowNs).map { answer in
                RTCPExtendedReport(ssrc: encodings[0].ssrc, blocks: [answer])
            }
            let length = try RTCPCompoundPacket.senderReports(
                reports, cname: configuration.tuning.cname, extendedReport: extendedReport, bye: bye
            ).serialize(into: buffer)
            pendingReport = (ntpTimestamp, nowNs)
            return length
        } catch {
            logger.info("RTCP sender report not written: \(error)")
            return nil
        }
    }

    private func finish(nowNs: Int64) {
        isFinished = true
        reportStatistics(nowNs: nowNs, force: true)
    }

    /// Sends the sender's figures to the sink, at most every `statisticsIntervalNs` unless forced.
    private func reportStatistics(nowNs: Int64, force: Bool) {
        guard force || lastStatisticsReportNs.map({ nowNs - $0 >= Self.statisticsIntervalNs }) ?? true else { return }
        lastStatisticsReportNs = nowNs
        if let lastNs = roundTripTime.lastNs, let medianMs = roundTripTime.medianMs {
            statistics.rttMs = .init(last: Double(lastNs) / 1e6, p50: medianMs)
        }
        statistics.pacerQueueMs = .init(p99: pacerQueueTimes.percentileMs(99) ?? 0, max: pacerQueueTimes.maxMs)
        outputs.append(.sink(.statistics(statistics)))
    }
}

/// What an outgoing copy in the batch was.
private struct OutgoingPacket {
    var slot: Int
    var kind: PacketKind
    var transportSequenceNumber: Int64
    var probeClusterID: Int?
}

/// The earlier of two optional deadlines.
private func earliest(_ a: Int64?, _ b: Int64?) -> Int64? {
    guard let a else { return b }
    guard let b else { return a }
    return min(a, b)
}
