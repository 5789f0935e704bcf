import CongestionControl
import Logging
import MediaCore
import Pacing
import RTCP
import RTP
import Transport

/// The send thread (`camrtp.send`): one event loop that wakes on frames queued by the encoder,
/// on feedback arriving on its sockets and on its earliest deadline (the pacer, the RTCP report,
/// a deferred keyframe request, the congestion controller's tick), and owns everything
/// stateful on the way to the wire: the RTP stream, the packet store and history, the pacer,
/// the congestion controller, the feedback policies, SRTP and the sockets.
///
/// Frames become packets in the store as soon as they arrive; the pacer releases them (and
/// retransmissions ahead of them) at the pacing rate; each leaves as a copy that is stamped
/// (abs-send-time, transport-wide sequence number) and protected, so the history keeps the
/// plaintext. Nothing here allocates per packet.
///
/// Built on the caller's thread, then used by the send thread alone: starting the thread orders
/// the hand-over, which is what makes the unchecked `Sendable` sound.
final class SendLoop: @unchecked Sendable {
    /// How often the congestion controller ticks (libwebrtc: 25 ms).
    static let controllerIntervalNs: Int64 = 25_000_000
    /// The least time between two statistics reports to the pipeline.
    static let statisticsIntervalNs: Int64 = 250_000_000
    /// The RTCP BYE waits this long after the last media packet, so that a receiver reading its
    /// RTCP socket first (ffmpeg does) still reads the last frame before it ends the stream.
    static let byeGraceNs: Int64 = 50_000_000
    let configuration: RTPSenderConfiguration
    let logger: Logger
    let frames: FrameQueue
    let eventLoop: EventLoop
    /// Set by the owner before the thread starts.
    var encoder: any EncoderControl = NoEncoderControl()
    var reporter = SinkReporter.ignoring
    /// Receives every congestion-controller update (`--trace-bwe`).
    let traceSink: (@Sendable (BWETraceRecord) -> Void)?

    let pathway: any Pathway
    let protection: SRTPSession?
    let feedbackProtection: SRTPSession?
    /// Outgoing copies: stamped and protected in place, then sent in one call.
    let batch: RTPPacketBatch
    let receiveBuffer: UnsafeMutableRawBufferPointer
    let reportBuffer: UnsafeMutableRawBufferPointer

    var packetizer: FramePacketizer
    var nextRetransmissionSequenceNumber: UInt16
    let store: PacketStore
    var history = PacketHistory()
    var pacer: Pacer<Int>
    var congestion: CongestionController
    var hasTransportFeedback = false
    var nextControllerTickNs: Int64?
    var nextTransportSequenceNumber: Int64 = 0
    var transportSequenceNumbers = TransportSequenceNumberUnwrapper()
    var nack = NACKResponder()
    var keyframes: KeyframeRequestPolicy
    var roundTripTime = RoundTripTimeEstimator()
    var reportSchedule = RTCPReportSchedule(random: SystemRandomNumberGenerator())
    /// Every feedback datagram costs parsing and may trigger work, so a flood is cut to 1000 a
    /// second (bursts of 200) and the rest counted as rejected; real receivers send tens.
    var feedbackLimiter = TokenBucket(ratePerSecond: 1_000, burst: 200)
    var lossReports = ReceiverLossTracker()
    var statistics: SenderStatistics
    var lastStatisticsReportNs: Int64?
    var foreignDatagramsCounted: UInt64 = 0
    var pacerQueueTimes = LatencyHistogram()

    /// Per batch: what each outgoing copy was, to account for it once the batch has left.
    var outgoing: [OutgoingPacket] = []
    /// The frame whose packets are leaving: counts for its `frameDelivered` report.
    var currentFrame = FrameProgress()
    /// RTP packets and payload octets on the media SSRC, for SRs (RFC 3550 §6.4.1).
    var senderPacketCount = 0
    var senderOctetCount = 0
    var lastMediaSentNs: Int64?

    init(
        configuration: RTPSenderConfiguration, frames: FrameQueue, eventLoop: EventLoop,
        traceSink: (@Sendable (BWETraceRecord) -> Void)?, logger: Logger
    ) throws(RTPSenderError) {
        self.configuration = configuration
        self.traceSink = traceSink
        self.logger = logger
        self.frames = frames
        self.eventLoop = eventLoop
        packetizer = try FramePacketizer(configuration: configuration)
        nextRetransmissionSequenceNumber = UInt16.random(in: 0..<(1 << 15))
        do throws(SocketError) {
            switch configuration.route {
            case .udp(let destination, let rtcpDestination, let localPort):
                pathway = try UDPPathway(destination: destination, rtcpDestination: rtcpDestination, localPort: localPort, logger: logger)
            case .transport(let transport):
                pathway = ExternalPathway(transport: transport)
            }
            try pathway.watch(with: eventLoop)
        } catch {
            throw .socket(error)
        }
        do throws(SRTPError) {
            protection = try configuration.srtpKey.map { key throws(SRTPError) in try SRTPSession(key: key, direction: .outbound) }
            feedbackProtection = try (configuration.feedbackSRTPKey ?? configuration.srtpKey).map { key throws(SRTPError) in
                try SRTPSession(key: key, direction: .inbound)
            }
        } catch {
            throw .srtp(error)
        }
        let slotCapacity = configuration.mtu
        batch = RTPPacketBatch(
            slotCapacity: slotCapacity, tailroom: configuration.srtpKey == nil ? 0 : SRTPSession.maximumTrailerLength,
            initialSlotCount: 64)
        store = PacketStore(slotCapacity: slotCapacity, maximumSlotCount: PacketHistory.maximumPackets + 4_096)
        receiveBuffer = .allocate(byteCount: 2_048, alignment: 16)
        reportBuffer = .allocate(byteCount: 1_500, alignment: 16)
        pacer = Pacer(
            configuration: configuration.pacing,
            pacingRateBps: Int64(Double(configuration.congestionControl.startBitrateBps)
                * configuration.congestionControl.pacingFactorBeforeFeedback))
        congestion = CongestionController(configuration: configuration.congestionControl)
        keyframes = KeyframeRequestPolicy(minimumIntervalNs: configuration.keyframeRequestIntervalNs)
        statistics = SenderStatistics(startBitrateKbps: Double(configuration.congestionControl.startBitrateBps) / 1000)
        outgoing.reserveCapacity(64)
    }

    deinit {
        receiveBuffer.deallocate()
        reportBuffer.deallocate()
    }

    /// Runs until the frame queue is closed and everything in it has left, then sends BYE.
    func run() {
        var byeDeadlineNs: Int64?
        while true {
            let nowNs = MonotonicClock.nowNs()
            var deadline = earliest(pacer.nextSendTimeNs(nowNs: nowNs), reportSchedule.nextReportNs)
            deadline = earliest(deadline, earliest(keyframes.nextDeadlineNs, earliest(nextControllerTickNs, byeDeadlineNs)))
            let events: [EventLoop.Event]
            do {
                events = try eventLoop.wait(untilNs: deadline)
            } catch {
                frames.fail(error)
                return
            }
            for event in events {
                switch event {
                case .readable(let token): readFeedback(token: token)
                case .failed(let token): pathway.handleError(token: token)
                case .woken: readFeedback(token: nil)
                case .deadline: break
                }
            }
            let now = MonotonicClock.nowNs()
            takeFrames(nowNs: now)
            tick(nowNs: now)
            do {
                try sendDuePackets(nowNs: now)
            } catch {
                frames.fail(error)
                return
            }
            if reportSchedule.takeDueReport(nowNs: now) { sendReport(bye: false, nowNs: now) }
            reportStatistics(nowNs: now, force: false)

            guard frames.isFinished, pacer.queuedPacketCount == 0 else { continue }
            guard lastMediaSentNs != nil else { break }
            let byeAtNs = byeDeadlineNs ?? (lastMediaSentNs ?? now) + Self.byeGraceNs
            byeDeadlineNs = byeAtNs
            if now >= byeAtNs {
                sendReport(bye: true, nowNs: now)
                break
            }
        }
        reportStatistics(nowNs: MonotonicClock.nowNs(), force: true)
    }

    /// The periodic work that does not depend on what woke the loop.
    private func tick(nowNs: Int64) {
        if keyframes.takeDueRequest(nowNs: nowNs) { forwardKeyframeRequest() }
        if let due = nextControllerTickNs, nowNs >= due {
            nextControllerTickNs = nowNs + Self.controllerIntervalNs
            apply(congestion.process(nowNs: nowNs), nowNs: nowNs)
            history.expire(nowNs: nowNs, roundTripTimeNs: currentRoundTripTimeNs, store: store)
        }
    }

    /// The RTT in use: from receiver reports, else from the controller, else 0.
    var stream: RTPStream { packetizer.stream }

    var currentRoundTripTimeNs: Int64 {
        roundTripTime.lastNs ?? congestion.estimate.roundTripTimeNs
    }

    /// Sends the sender's figures to the pipeline, at most every `statisticsIntervalNs` unless forced.
    func reportStatistics(nowNs: Int64, force: Bool) {
        guard force || lastStatisticsReportNs.map({ nowNs - $0 >= Self.statisticsIntervalNs }) ?? true else { return }
        lastStatisticsReportNs = nowNs
        let refused = pathway.refusedFeedback
        statistics.rtcpReceived.rejected += Int(refused - foreignDatagramsCounted)
        foreignDatagramsCounted = refused
        if let lastNs = roundTripTime.lastNs, let medianMs = roundTripTime.medianMs {
            statistics.rttMs = .init(last: Double(lastNs) / 1e6, p50: medianMs)
        }
        statistics.pacerQueueMs = .init(p99: pacerQueueTimes.percentileMs(99) ?? 0, max: pacerQueueTimes.maxMs)
        reporter.report(.statistics(statistics))
    }

    /// What went out (and what was refused), for the sender's final report.
    var transportStatistics: UDPTransportStatistics { pathway.statistics }
}

/// Stands in for an encoder until the pipeline attaches one.
final class NoEncoderControl: EncoderControl {
    func requestKeyframe() {}
    func setTargetBitrate(kbps: Int) {}
    func setNetworkCongested(_ congested: Bool) {}
}

/// The earlier of two optional deadlines.
private func earliest(_ a: Int64?, _ b: Int64?) -> Int64? {
    guard let a else { return b }
    guard let b else { return a }
    return min(a, b)
}

/// What an outgoing copy in the batch was.
struct OutgoingPacket {
    var slot: Int
    var kind: PacketKind
    var transportSequenceNumber: Int64
    var probeClusterID: Int?
    var wireBytes = 0
}

/// Packets and bytes of the frame leaving now.
struct FrameProgress {
    var packets = 0
    var bytes = 0
}
