import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// A real encoder that cannot keep up: 1920×1080 at 60 fps with libvpx's slowest fixed real-time
    /// speed (cpu-used −1; 0 and positive values speed up by themselves to keep up). It runs as its
    /// own process so that its memory can be watched apart from other tests.
    @Suite struct OverloadTests {
        @Test func latencyStaysBoundedAndMemoryFlatWhenTheEncoderFallsBehind() throws {
            let folder = TemporaryDirectory()
            let statsPath = folder.file("stats.json")
            let fps = 60.0
            let sender = try CamrtpBinary.tool.start([
                "send", "--source", "testsrc:1920x1080@60", "--cpu-used", "-1", "--threads", "1", "--bitrate", "4000",
                "--duration", "5", "--to", "127.0.0.1:\(UDPPorts.freePair())", "--stats-json", statsPath,
            ])
            usleep(1_500_000)
            let residentEarly = Self.residentBytes(of: sender.pid)
            usleep(3_000_000)
            let residentLate = Self.residentBytes(of: sender.pid)
            let result = sender.wait(timeout: 20)
            #expect(result.status == 0, "\(result.stderr)")

            let stats = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: statsPath))) as? [String: Any])
            let captured = try #require(stats["framesCaptured"] as? Int)
            let encoded = try #require(stats["framesEncoded"] as? Int)
            let dropped = stats["framesDropped"] as? [String: Int] ?? [:]
            let latency = try #require(stats["latencyMs"] as? [String: Double])
            let encode = try #require(stats["encodeMs"] as? [String: Double])
            #expect(encoded + dropped.values.reduce(0, +) == captured)
            #expect(encoded < captured * 2 / 3, "the encoder should not keep up: \(stats)")
            #expect((dropped["late"] ?? 0) > captured / 4, "\(dropped)")
            // An encoded frame waited in the one-slot mailbox for at most one frame interval (a newer
            // one would have replaced it) behind one encode in progress, then was encoded: two
            // intervals and one encode bound it, with a little room for scheduling.
            let intervalMs = 1000 / fps
            #expect(latency["p99"]! <= 2 * intervalMs + encode["p99"]! + 5, "latency \(latency), encode \(encode)")
            #expect(residentLate - residentEarly < 8 << 20, "resident memory grew \((residentLate - residentEarly) >> 20) MiB")
        }

        /// Resident set size of process `pid`, from /proc/PID/statm.
        static func residentBytes(of pid: pid_t) -> Int {
            let fields = (try? String(contentsOfFile: "/proc/\(pid)/statm", encoding: .utf8))?.split(separator: " ") ?? []
            return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
        }
    }
}
