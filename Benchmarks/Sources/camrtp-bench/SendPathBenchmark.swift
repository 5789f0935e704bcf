import Foundation
import MediaCore
import RTP
import Transport

/// Packetizes pre-encoded frames over and over, optionally protecting and sending them, and
/// reports throughput and heap allocations per packet for each stage combination.
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
        var mallocsPerPacket: Double
        var mallocBytesPerPacket: Double
        var sendFailures: UInt64
    }

    enum Stage: String, CaseIterable {
        case packetize = "packetize"
        case packetizeSend = "packetize + send"
        case packetizeSRTPSend = "packetize + SRTP + send"
    }

    static let minimumSeconds = 1.0

    var rows: [Row]

    static func run(frames: [EncodedFrame], passes: Int) throws -> SendPathBenchmark {
        let sink = try SinkSocket()
        let rows = try Stage.allCases.map { stage throws in
            try measure(stage, frames: frames, passes: passes, port: sink.port)
        }
        return SendPathBenchmark(rows: rows)
    }

    private static func measure(_ stage: Stage, frames: [EncodedFrame], passes: Int, port: UInt16) throws -> Row {
        let srtp = try SRTPSession(key: SRTPMasterKey(randomFor: .aesCM128HMACSHA1_80), direction: .outbound)
        let configuration = VP8Payloader.Configuration(
            srtpOverhead: stage == .packetizeSRTPSend ? VP8Payloader.Configuration.srtpAESCM128HMACSHA1_80Overhead : 0)
        var payloader = try VP8Payloader(configuration: configuration, session: .random())
        let batch = payloader.makeBatch(tailroom: SRTPSession.maximumTrailerLength)
        let transport = try UDPTransport(remote: Endpoint(parsing: "127.0.0.1:\(port)"))

        var packets = 0
        var wireBytes = 0
        func pass() throws {
            for frame in frames {
                try payloader.packetize(frame, into: batch)
                if stage == .packetizeSRTPSend { try srtp.protectRTP(in: batch) }
                if stage != .packetize { transport.send(batch) }
                packets &+= batch.count
                for index in 0..<batch.count { wireBytes &+= batch.length(at: index) }
            }
        }

        // The first pass grows the batch and the socket's message vectors to their largest frame.
        try pass()
        packets = 0
        wireBytes = 0
        let allocations = try AllocationCounter.measure { () throws in try pass() }
        let countedPackets = packets

        // At least `passes` passes and a second of work, so the fast stages are timed over
        // more than a few milliseconds.
        packets = 0
        wireBytes = 0
        let start = now()
        var completed = 0
        var seconds = 0.0
        while completed < passes || seconds < minimumSeconds {
            try pass()
            completed += 1
            seconds = now() - start
        }

        let failures = transport.statistics.packetsDropped
        return Row(
            stage: stage.rawValue, packets: packets, wireBytes: wireBytes, passes: completed, seconds: seconds,
            packetsPerSecond: Double(packets) / seconds,
            gigabitsPerSecond: Double(wireBytes) * 8 / seconds / 1e9,
            mallocsPerPacket: Double(allocations.mallocs) / Double(countedPackets),
            mallocBytesPerPacket: Double(allocations.bytes) / Double(countedPackets),
            sendFailures: stage == .packetize ? 0 : failures)
    }

    func table() -> String {
        var lines = [
            "Send path: the encoded frames above, packetized (mtu 1200) and sent to 127.0.0.1 with sendmmsg",
            pad("stage", 26) + pad("packets", 10, right: true) + pad("Mpkt/s", 9, right: true)
                + pad("Gbit/s", 9, right: true) + pad("mallocs/pkt", 13, right: true)
                + pad("bytes/pkt", 11, right: true) + pad("send fails", 12, right: true),
        ]
        for row in rows {
            lines.append(pad(row.stage, 26) + pad("\(row.packets)", 10, right: true)
                + pad(format(row.packetsPerSecond / 1e6, 3), 9, right: true)
                + pad(format(row.gigabitsPerSecond, 2), 9, right: true)
                + pad(format(row.mallocsPerPacket, 2), 13, right: true)
                + pad(format(row.mallocBytesPerPacket, 0), 11, right: true)
                + pad("\(row.sendFailures)", 12, right: true))
        }
        return lines.joined(separator: "\n")
    }
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
