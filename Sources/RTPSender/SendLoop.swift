import CongestionControl
import Logging
import MediaCore
import RTP
import RTPSession
import Transport

/// The send thread (`camrtp.send`): the I/O around a `SendSession`. One event loop wakes on
/// frames queued by the encoder, on feedback arriving on its sockets and at the session's next
/// deadline; it reads the clock, feeds the session, protects what the session writes with SRTP,
/// sends it, and passes the session's commands to the encoder and its events to the pipeline.
///
/// Built on the caller's thread, then used by the send thread alone: starting the thread orders
/// the hand-over, which is what makes the unchecked `Sendable` sound.
final class SendLoop: @unchecked Sendable {
    /// Set by the owner before the thread starts.
    var encoder: any EncoderControl = NoEncoderControl()
    var reporter = SinkReporter.ignoring
    let pathway: any Pathway

    private let session: SendSession
    private let frames: FrameQueue
    private let eventLoop: EventLoop
    private let logger: Logger
    /// Receives every congestion-controller update (`--trace-bwe`).
    private let traceSink: (@Sendable (BWETraceRecord) -> Void)?
    private let protection: SRTPSession?
    private let feedbackProtection: SRTPSession?
    private let acceptsPlainRTCP: Bool
    /// Outgoing copies: written by the session, protected in place, then sent in one call.
    private let batch: RTPPacketBatch
    private let receiveBuffer: UnsafeMutableRawBufferPointer
    private let reportBuffer: UnsafeMutableRawBufferPointer
    /// Feedback the pathway refused (foreign addresses, a full queue) already counted.
    private var refusedFeedbackCounted: UInt64 = 0

    init(
        configuration: RTPSenderConfiguration, frames: FrameQueue, eventLoop: EventLoop,
        traceSink: (@Sendable (BWETraceRecord) -> Void)?, logger: Logger
    ) throws(RTPSenderError) {
        do throws(SendSessionError) {
            session = try SendSession(
                configuration: configuration.session, protectionOverhead: configuration.protectionOverhead, ntpClock: .system(),
                logger: logger)
        } catch {
            throw .session(error)
        }
        self.frames = frames
        self.eventLoop = eventLoop
        self.traceSink = traceSink
        self.logger = logger
        acceptsPlainRTCP = configuration.acceptsPlainRTCP
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
        batch = RTPPacketBatch(
            slotCapacity: configuration.session.tuning.mtu,
            tailroom: configuration.srtpKey == nil ? 0 : SRTPSession.maximumTrailerLength, initialSlotCount: SendSession.maximumBatchCount)
        receiveBuffer = .allocate(byteCount: 2_048, alignment: 16)
        reportBuffer = .allocate(byteCount: 1_500, alignment: 16)
    }

    deinit {
        receiveBuffer.deallocate()
        reportBuffer.deallocate()
    }

    /// Runs until the frame queue is closed, everything in it has left and BYE went out.
    func run() {
        while !session.isFinished {
            let events: [EventLoop.Event]
            do {
                events = try eventLoop.wait(untilNs: session.nextDeadlineNs(nowNs: MonotonicClock.nowNs()))
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
            let nowNs = MonotonicClock.nowNs()
            while let frame = frames.pop() { session.send(frame, nowNs: nowNs) }
            if frames.isFinished { session.close() }
            session.setPaddingProbe(kbps: encoder.paddingProbeKbps, nowNs: nowNs)
            session.tick(nowNs: nowNs)
            do {
                try sendDuePackets(nowNs: nowNs)
                try sendDueReport(nowNs: nowNs)
            } catch {
                frames.fail(error)
                return
            }
            forwardOutputs()
        }
    }

    /// What went out (and what was refused), for the sender's final report.
    var transportStatistics: UDPTransportStatistics { pathway.statistics }

    /// Reads every feedback datagram waiting where `token` (a socket) or a wake-up (a transport's
    /// queue) says, and hands the RTCP in it to the session. Datagrams from other addresses were
    /// already refused by the pathway; the rate limit and SRTCP may refuse more.
    private func readFeedback(token: Int?) {
        while let length = pathway.nextFeedback(into: receiveBuffer, token: token) {
            let nowNs = MonotonicClock.nowNs()
            guard session.admitFeedback(nowNs: nowNs) else { continue }
            guard let plainLength = unprotectedFeedback(length: length) else {
                session.refuseFeedback()
                continue
            }
            session.receiveRTCP(UnsafeRawBufferPointer(rebasing: receiveBuffer[0..<plainLength]), nowNs: nowNs)
        }
        let refused = pathway.refusedFeedback
        if refused > refusedFeedbackCounted {
            session.refuseFeedback(count: Int(refused - refusedFeedbackCounted))
            refusedFeedbackCounted = refused
        }
    }

    /// The length of the plain RTCP in `receiveBuffer`, or nil when the datagram is refused: it
    /// is not RTCP (RFC 5761 §4: payload types 192–223 on a multiplexed port), or it fails SRTCP
    /// authentication and plain feedback is not accepted.
    private func unprotectedFeedback(length: Int) -> Int? {
        guard length >= 8, (192...223).contains(receiveBuffer[1]) else { return nil }
        guard let feedbackProtection else { return length }
        if let plainLength = try? feedbackProtection.unprotectRTCP(receiveBuffer, length: length) { return plainLength }
        // A peer that sends plain RTCP on an SRTP session (Janus) is heard only when allowed; the
        // SRTCP check failed before libsrtp2 touched the bytes.
        return acceptsPlainRTCP ? length : nil
    }

    /// Sends what the session releases now, in batches of one `sendmmsg` each.
    private func sendDuePackets(nowNs: Int64) throws(SRTPError) {
        while session.writeDuePackets(into: batch, nowNs: nowNs) > 0 {
            if let protection {
                for index in 0..<batch.count {
                    batch.setLength(try protection.protectRTP(batch.slot(at: index), length: batch.length(at: index)), at: index)
                }
            }
            let sentCount = pathway.sendMedia(batch)
            if sentCount < batch.count { logger.debug("socket dropped \(batch.count - sentCount) of \(batch.count) packets") }
            session.packetsLeft(batch, atNs: MonotonicClock.nowNs())
        }
    }

    /// Sends the RTCP report the session has due, if any.
    private func sendDueReport(nowNs: Int64) throws(SRTPError) {
        guard var length = session.writeDueReport(into: reportBuffer, nowNs: nowNs) else { return }
        if let protection { length = try protection.protectRTCP(reportBuffer, length: length) }
        if pathway.sendControl(UnsafeRawBufferPointer(rebasing: reportBuffer[0..<length])) {
            session.reportLeft(wireBytes: length)
        }
    }

    /// The session's commands to the encoder, its events to the pipeline, its trace to the file.
    private func forwardOutputs() {
        session.drainOutputs { output in
            switch output {
            case .encoder(.keyframe(let encodingIndex)):
                encoder.requestKeyframe(encodingIndex: encodingIndex)
            case .encoder(.targetBitrate(let kbps)):
                encoder.setTargetBitrate(kbps: kbps)
            case .encoder(.networkCongested(let congested)):
                encoder.setNetworkCongested(congested)
            case .encoder(.paddingProbeFailed):
                encoder.paddingProbeFailed()
            case .sink(let event):
                reporter.report(event)
            case .trace(let record):
                traceSink?(record)
            }
        }
    }
}

/// Stands in for an encoder until the pipeline attaches one.
final class NoEncoderControl: EncoderControl {
    func requestKeyframe() {}
    func requestKeyframe(encodingIndex: Int) {}
    func setTargetBitrate(kbps: Int) {}
    func setNetworkCongested(_ congested: Bool) {}
}
