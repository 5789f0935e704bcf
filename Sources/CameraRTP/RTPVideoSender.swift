import Foundation
import Logging
import MediaCore
import RTCP
import RTP
import Transport

/// Sends encoded frames as RTP (RFC 3550, VP8 per RFC 7741), optionally protected with SRTP
/// (RFC 3711), with RTCP sender reports.
///
/// The send thread (`camrtp.send`) owns everything stateful: the payloader's sequence numbers
/// and PictureIDs, the packet batch, the SRTP context and the sockets. The encoder thread only
/// queues frames. As for every `EncodedFrameSink`, `consume` and `finish` are called one after
/// the other, never at once, which is what makes the unchecked `Sendable` sound. Per packet nothing is allocated: the batch's slots are reused, SRTP works in
/// place, and `sendmmsg` takes the whole frame in one call.
public final class RTPVideoSender: EncodedFrameSink, @unchecked Sendable {
    public let plan: SessionPlan
    public let ssrc: UInt32
    private static let byeGraceNs: Int64 = 50_000_000
    private let logger: Logger
    private let queue = FrameQueue()
    private var thread: MediaThread?
    // Owned by the send thread once it runs.
    private var payloader: VP8Payloader
    private let batch: RTPPacketBatch
    private let rtpTransport: UDPTransport
    private let rtcpTransport: UDPTransport
    private let srtp: SRTPSession?
    private let rtcpBuffer: UnsafeMutableRawBufferPointer
    private var reportState = SenderReportState()
    private var stats: PipelineStats?

    /// Opens the sockets and the SRTP context; nothing is sent until the first frame.
    public init(plan: SessionPlan, logger: Logger = Logger(label: "camrtp.sender")) throws {
        try plan.validate()
        self.plan = plan
        self.logger = logger
        let session = plan.makeSessionParameters()
        ssrc = session.ssrc
        payloader = try VP8Payloader(configuration: plan.payloaderConfiguration, session: session)
        srtp = try plan.srtpKey.map { try SRTPSession(key: $0, direction: .outbound) }
        batch = payloader.makeBatch(tailroom: srtp == nil ? 0 : SRTPSession.maximumTrailerLength, initialSlotCount: 64)
        let rtpTransport = try UDPTransport(remote: plan.destination, logger: logger)
        self.rtpTransport = rtpTransport
        rtcpTransport = try plan.rtcpDestination.map { try rtpTransport.makeRTCPTransport(rtcpRemote: $0) } ?? rtpTransport
        rtcpBuffer = .allocate(byteCount: 1500, alignment: 16)
        logger.info("RTP to \(plan.destination), SSRC \(ssrc)\(srtp.map { ", SRTP \($0.suite.sdpName)" } ?? "")")
    }

    deinit {
        rtcpBuffer.deallocate()
    }

    /// Counters of the RTP socket (packets, bytes, refused and dropped sends), as of the end of
    /// the stream: read them after `finish`.
    public var transportStatistics: UDPTransportStatistics { queue.transportStatistics }

    public func consume(_ frame: EncodedFrame, stats: PipelineStats) throws {
        if thread == nil {
            self.stats = stats
            thread = MediaThread(name: "camrtp.send") {
                self.sendLoop()
                self.queue.transportStatistics = self.rtpTransport.statistics
            }
        }
        queue.push(frame)
    }

    /// Sends what is queued, then RTCP BYE, and stops the send thread.
    public func finish(stats: PipelineStats) throws {
        queue.close()
        thread?.join()
        thread = nil
        if let failure = queue.failure { throw failure }
    }

    private func sendLoop() {
        var nextReportNs: Int64 = 0
        while true {
            switch queue.pop(untilNs: nextReportNs == 0 ? .max : nextReportNs) {
            case .frame(let frame):
                do {
                    try send(frame)
                } catch {
                    queue.fail(error)
                    return
                }
                if nextReportNs == 0 { nextReportNs = MonotonicClock.nowNs() }
            case .timeout:
                break
            case .closed:
                if reportState.packetCount > 0 {
                    // BYE travels on the RTCP socket and receivers such as ffmpeg end the stream on
                    // it; a moment's grace lets the last frame's packets be read first.
                    MonotonicClock.sleep(untilNs: reportState.lastSendNs + Self.byeGraceNs)
                    sendReport(bye: true)
                }
                return
            }
            let now = MonotonicClock.nowNs()
            if nextReportNs != 0 && now >= nextReportNs {
                sendReport(bye: false)
                // RFC 3550 §6.3.1: the interval is randomised over [0.5, 1.5] times its mean.
                nextReportNs = now + Int64(Double.random(in: 0.5...1.5) * 1e9)
            }
        }
    }

    private func send(_ frame: EncodedFrame) throws {
        try frame.data.withUnsafeBytes { bytes in
            try payloader.packetize(
                bytes, isKeyframe: frame.isKeyframe, isDroppable: frame.isDroppable,
                timestampNs: frame.timestampNs, rotation: frame.rotation, into: batch)
        }
        let sendTime = AbsoluteSendTime(timeNs: MonotonicClock.nowNs())
        for index in 0..<batch.count {
            batch.stampAbsoluteSendTime(sendTime, at: index)
        }
        if let srtp { try srtp.protectRTP(in: batch) }
        // The socket counts what it really sent (a packet it had to drop is not there).
        let before = rtpTransport.statistics
        rtpTransport.send(batch)
        let sentNs = MonotonicClock.nowNs()
        let after = rtpTransport.statistics
        stats?.frameSent(
            packets: Int(after.packetsSent - before.packetsSent), bytes: Int(after.bytesSent - before.bytesSent),
            latencyNs: sentNs - frame.timestampNs)
        reportState.record(packets: batch.count, payloadOctets: frame.data.count, sentNs: sentNs)
    }

    /// SR + SDES (RFC 3550 §6.4.1, §6.5), and BYE (§6.6) when the stream ends.
    private func sendReport(bye: Bool) {
        let now = MonotonicClock.nowNs()
        let report = RTCPSenderReport(
            ssrc: ssrc, ntpTimestamp: .now(), rtpTimestamp: payloader.clock.rtpTimestamp(forNs: now),
            packetCount: UInt32(truncatingIfNeeded: reportState.packetCount),
            octetCount: UInt32(truncatingIfNeeded: reportState.octetCount))
        let compound = RTCPCompoundPacket.senderReport(report, cname: plan.cname, bye: bye ? RTCPBye(ssrcs: [ssrc]) : nil)
        do {
            var length = try compound.serialize(into: rtcpBuffer)
            if let srtp { length = try srtp.protectRTCP(rtcpBuffer, length: length) }
            if rtcpTransport.send(UnsafeRawBufferPointer(rebasing: rtcpBuffer[0..<length])) {
                stats?.controlSent(packets: 1, bytes: length)
            }
        } catch {
            logger.info("RTCP sender report not sent: \(error)")
        }
    }
}

/// The RTP packet and payload-octet counts an SR carries (RFC 3550 §6.4.1).
struct SenderReportState {
    var packetCount = 0
    var octetCount = 0
    var lastSendNs: Int64 = 0

    mutating func record(packets: Int, payloadOctets: Int, sentNs: Int64) {
        packetCount += packets
        octetCount += payloadOctets
        lastSendNs = sentNs
    }
}

/// Encoded frames from the encoder thread to the send thread. It holds a handful at most: the
/// send thread empties it faster than the encoder fills it.
final class FrameQueue: @unchecked Sendable {
    enum Item {
        case frame(EncodedFrame)
        case timeout
        case closed
    }

    private let condition = NSCondition()
    private var frames: [EncodedFrame] = []
    private var head = 0
    private var closed = false
    private var firstFailure: (any Error)?
    private var statistics = UDPTransportStatistics()

    init() {
        frames.reserveCapacity(16)
    }

    func push(_ frame: EncodedFrame) {
        condition.lock()
        frames.append(frame)
        condition.signal()
        condition.unlock()
    }

    /// The next frame, `.timeout` when `untilNs` passes first, `.closed` once closed and drained.
    func pop(untilNs: Int64) -> Item {
        condition.lock()
        defer { condition.unlock() }
        while head == frames.count {
            if closed { return .closed }
            let remainingNs = untilNs - MonotonicClock.nowNs()
            if remainingNs <= 0 { return .timeout }
            _ = condition.wait(until: Date(timeIntervalSinceNow: min(Double(remainingNs) / 1e9, 3600)))
        }
        let frame = frames[head]
        head += 1
        if head == frames.count {
            // Emptied: start over in the same storage.
            frames.removeAll(keepingCapacity: true)
            head = 0
        }
        return .frame(frame)
    }

    func close() {
        condition.lock()
        closed = true
        condition.signal()
        condition.unlock()
    }

    func fail(_ error: any Error) {
        condition.lock()
        if firstFailure == nil { firstFailure = error }
        condition.unlock()
    }

    var failure: (any Error)? {
        condition.lock()
        defer { condition.unlock() }
        return firstFailure
    }

    var transportStatistics: UDPTransportStatistics {
        get {
            condition.lock()
            defer { condition.unlock() }
            return statistics
        }
        set {
            condition.lock()
            statistics = newValue
            condition.unlock()
        }
    }
}
