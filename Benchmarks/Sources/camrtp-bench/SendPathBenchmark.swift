import CongestionControl
import Foundation
import MediaCore
import Pacing
import RTP
import RTPSender
import RTPSession
import Synchronization
import Transport

/// Sends pre-encoded frames over and over through the real send path and reports throughput,
/// CPU and heap allocations per packet, stage by stage:
///
/// - `session`: a `SendSession` on this thread: packetize into the store, pace (off), write the
///   stamped copies, account for them after they left: everything the sender decides.
/// - `session + FEC`: the same with RED around every packet and ULPFEC at `--fec on`'s share
///   (a fifth of the delta frames' packets, half of the keyframes'); rates count media and FEC.
/// - `session + send`, `session + SRTP + send`: the same, handed to a UDP socket with
///   `sendmmsg`, then SRTP-protected (AES_CM_128_HMAC_SHA1_80) first.
/// - `RTPVideoSender`: the whole sender as the pipeline uses it, its thread, event loop, SRTP and
///   socket included; frames go in through `consume` and CPU is the process's.
///
/// Packets go to a UDP socket bound on 127.0.0.1 that nobody reads: the sender pays the whole
/// loopback delivery (copy into the receiver's queue), and once that queue is full the kernel
/// drops the datagram after the copy, without a receiving thread competing for the 2 cores.
struct SendPathBenchmark {
    struct Row: Encodable {
        var stage: String
        var packets: Int
        var wireBytes: Int
        var passes: Int
        var seconds: Double
        var packetsPerSecond: Double
        var gigabitsPerSecond: Double
        var cpuNsPerPacket: Double
        var mallocsPerPacket: Double
        var mallocBytesPerPacket: Double
    }

    enum Stage: String, CaseIterable {
        case session = "session"
        case sessionFEC = "session + FEC"
        case sessionSend = "session + send"
        case sessionSRTPSend = "session + SRTP + send"
        case sender = "RTPVideoSender"
    }

    static let minimumSeconds = 1.0

    var rows: [Row]

    static func run(frames: [EncodedFrame], passes: Int) throws -> SendPathBenchmark {
        let sink = try SinkSocket()
        var rows = try [Stage.session, .sessionFEC, .sessionSend, .sessionSRTPSend].map { stage throws in
            try measureSession(stage, frames: frames, passes: passes, port: sink.port)
        }
        rows.append(try measureSender(frames: frames, passes: passes, port: sink.port))
        return SendPathBenchmark(rows: rows)
    }

    /// The session's configuration: one encoding, transport-wide numbers, abs-send-time and a
    /// playout delay on every packet, abs-capture-time on first packets (every pass starts the
    /// frames' capture times again, so it goes on more frames than a live stream's), RTX, no
    /// pacing and no probes, so that every frame leaves at once; FEC always on when `fec`.
    static func sessionConfiguration(fec: Bool = false) -> SendSessionConfiguration {
        let tuning = SenderTuning(
            retransmission: .rtx, fec: fec ? .on : .off,
            congestionControl: CongestionControllerConfiguration(
                startBitrateBps: 1_500_000, maxBitrateBps: 1_500_000, isProbingEnabled: false),
            pacing: PacerConfiguration(isPacingEnabled: false), playoutDelay: PlayoutDelay(minimumMs: 0, maximumMs: 100))
        return SendSessionConfiguration(
            tuning: tuning, encodings: [EncodingStreams(media: .random(), rtxSSRC: 0x5EED)], rtxPayloadType: 97,
            extensions: HeaderExtensionIDs(absoluteSendTime: 2, transportWideSequenceNumber: 3, absoluteCaptureTime: 9, playoutDelay: 12),
            fec: fec ? FECPayloadTypes(red: 98, ulpfec: 99) : nil)
    }

    private static func measureSession(_ stage: Stage, frames: [EncodedFrame], passes: Int, port: UInt16) throws -> Row {
        let key = SRTPMasterKey(randomFor: .aesCM128HMACSHA1_80)
        let srtp = try SRTPSession(key: key, direction: .outbound)
        let protects = stage == .sessionSRTPSend
        let session = try SendSession(
            configuration: sessionConfiguration(fec: stage == .sessionFEC),
            protectionOverhead: protects ? key.suite.rtpAuthenticationTagLength : 0,
            ntpClock: .system())
        let batch = RTPPacketBatch(slotCapacity: 1_200, tailroom: SRTPSession.maximumTrailerLength, initialSlotCount: 64)
        let transport = try UDPTransport(remote: Endpoint(parsing: "127.0.0.1:\(port)"))

        var packets = 0
        var wireBytes = 0
        func pass() throws {
            for frame in frames {
                let nowNs = MonotonicClock.nowNs()
                session.send(frame, nowNs: nowNs)
                session.tick(nowNs: nowNs)
                while session.writeDuePackets(into: batch, nowNs: nowNs) > 0 {
                    if protects {
                        for index in 0..<batch.count {
                            batch.setLength(try srtp.protectRTP(batch.slot(at: index), length: batch.length(at: index)), at: index)
                        }
                    }
                    if stage == .sessionSend || stage == .sessionSRTPSend { _ = transport.send(batch) }
                    packets &+= batch.count
                    for index in 0..<batch.count { wireBytes &+= batch.length(at: index) }
                    session.packetsLeft(batch, atNs: nowNs)
                }
                session.drainOutputs { _ in }
            }
        }
        return try measure(stage, passes: passes, packets: { packets }, wireBytes: { wireBytes }) { () throws in
            packets = 0
            wireBytes = 0
            try pass()
        }
    }

    /// The whole sender: frames through `consume`, a pass done when its last frame was delivered.
    private static func measureSender(frames: [EncodedFrame], passes: Int, port: UInt16) throws -> Row {
        let key = SRTPMasterKey(randomFor: .aesCM128HMACSHA1_80)
        let configuration = RTPSenderConfiguration(
            route: .udp(destination: try Endpoint(parsing: "127.0.0.1:\(port)"), rtcpDestination: nil, localPort: 0),
            srtpKey: key, session: sessionConfiguration())
        let sender = try RTPVideoSender(configuration: configuration)
        let delivered = DeliveryCount()
        sender.attach(encoder: IgnoredEncoder(), reporter: SinkReporter { event in
            if case .frameDelivered(_, let packets, let bytes, _) = event { delivered.add(packets: packets, bytes: bytes) }
        })
        var sentFrames = 0
        func pass() throws {
            for frame in frames { try sender.consume(frame) }
            sentFrames += frames.count
            guard delivered.wait(forFrames: sentFrames, timeoutNs: 30_000_000_000) else {
                throw SinkError(operation: "RTPVideoSender: frames not delivered within 30 s", code: ETIMEDOUT)
            }
        }
        let row = try measure(.sender, passes: passes, packets: { delivered.packets }, wireBytes: { delivered.bytes }) { () throws in
            delivered.resetPackets()
            try pass()
        }
        try sender.finish()
        return row
    }

    /// Warm-up passes until the history is full (9600 packets, whose store slots are then reused,
    /// as the batch and the socket's message vectors are), one pass counting allocations, then at
    /// least `passes` passes and a second of work, timed.
    private static func measure(
        _ stage: Stage, passes: Int, packets: () -> Int, wireBytes: () -> Int, pass: () throws -> Void
    ) throws -> Row {
        var warmUpPackets = 0
        while warmUpPackets < 12_000 {
            try pass()
            warmUpPackets += packets()
        }
        let allocations = try AllocationCounter.measure { () throws in try pass() }
        let countedPackets = packets()
        var totalPackets = 0
        var totalBytes = 0
        let start = now()
        let startCPU = processCPUSeconds()
        var completed = 0
        var seconds = 0.0
        while completed < passes || seconds < minimumSeconds {
            try pass()
            totalPackets += packets()
            totalBytes += wireBytes()
            completed += 1
            seconds = now() - start
        }
        let cpuSeconds = processCPUSeconds() - startCPU
        return Row(
            stage: stage.rawValue, packets: totalPackets, wireBytes: totalBytes, passes: completed, seconds: seconds,
            packetsPerSecond: Double(totalPackets) / seconds, gigabitsPerSecond: Double(totalBytes) * 8 / seconds / 1e9,
            cpuNsPerPacket: cpuSeconds * 1e9 / Double(totalPackets),
            mallocsPerPacket: Double(allocations.mallocs) / Double(countedPackets),
            mallocBytesPerPacket: Double(allocations.bytes) / Double(countedPackets))
    }

    func table() -> String {
        var lines = [
            "Send path: the encoded frames above, packetized (mtu 1200) and sent to 127.0.0.1 with sendmmsg",
            pad("stage", 26) + pad("packets", 10, right: true) + pad("Mpkt/s", 9, right: true)
                + pad("Gbit/s", 9, right: true) + pad("CPU ns/pkt", 12, right: true)
                + pad("mallocs/pkt", 13, right: true) + pad("bytes/pkt", 11, right: true),
        ]
        for row in rows {
            lines.append(pad(row.stage, 26) + pad("\(row.packets)", 10, right: true)
                + pad(format(row.packetsPerSecond / 1e6, 3), 9, right: true)
                + pad(format(row.gigabitsPerSecond, 2), 9, right: true)
                + pad(format(row.cpuNsPerPacket, 0), 12, right: true)
                + pad(format(row.mallocsPerPacket, 2), 13, right: true)
                + pad(format(row.mallocBytesPerPacket, 0), 11, right: true))
        }
        return lines.joined(separator: "\n")
    }
}

/// Frames and packets the sender reported delivered, for the caller to wait on.
final class DeliveryCount: Sendable {
    private struct Counts {
        var frames = 0
        var packets = 0
        var bytes = 0
    }

    private let counts = Mutex(Counts())
    private let changed = ThreadCondition()

    func add(packets: Int, bytes: Int) {
        counts.withLock {
            $0.frames += 1
            $0.packets += packets
            $0.bytes += bytes
        }
        changed.withLock { changed.broadcast() }
    }

    /// Whether `frames` were delivered before the timeout.
    func wait(forFrames frames: Int, timeoutNs: Int64) -> Bool {
        let deadlineNs = MonotonicClock.nowNs() + timeoutNs
        return changed.withLock {
            while counts.withLock({ $0.frames }) < frames {
                guard changed.wait(untilNs: deadlineNs) else { return counts.withLock { $0.frames } >= frames }
            }
            return true
        }
    }

    func resetPackets() {
        counts.withLock {
            $0.packets = 0
            $0.bytes = 0
        }
    }

    var packets: Int { counts.withLock { $0.packets } }
    var bytes: Int { counts.withLock { $0.bytes } }
}

/// The sender steers no encoder here.
final class IgnoredEncoder: EncoderControl {
    func requestKeyframe() {}
    func requestKeyframe(encodingIndex: Int) {}
    func setTargetBitrate(kbps: Int) {}
    func setNetworkCongested(_ congested: Bool) {}
}

/// User and system CPU of the whole process, in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
    let padding = String(repeating: " ", count: max(0, width - text.count))
    return right ? padding + text : text + padding
}

/// A UDP socket on an ephemeral port of 127.0.0.1 that receives and never reads.
final class SinkSocket {
    let port: UInt16
    private let fd: Int32

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw SinkError(operation: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(fd)
            throw SinkError(operation: "bind 127.0.0.1:0", code: code)
        }
        self.fd = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(fd) }
}

struct SinkError: Error, CustomStringConvertible {
    var operation: String
    var code: Int32
    var description: String { "\(operation): \(String(cString: strerror(code)))" }
}
