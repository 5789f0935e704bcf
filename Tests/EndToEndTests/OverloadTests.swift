import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// A real encoder that cannot keep up: 1920×1080 at 60 fps with libvpx's slowest fixed real-time
    /// speed (cpu-used −1; 0 and positive values speed up by themselves to keep up). It runs as its
    /// own process so that its memory can be watched apart from other tests. How far latency stays
    /// below its bound is a measurement (`Benchmarks/compare.py overload`); here the mailbox must
    /// drop rather than queue, and memory must stay flat.
    @Suite struct OverloadTests {
        @Test func theMailboxDropsAndMemoryStaysFlatWhenTheEncoderFallsBehind() throws {
            let folder = TemporaryDirectory()
            let statsPath = folder.file("stats.json")
            let receiver = try LoopbackSocket(ipv6: false)
            let sender = try CamrtpBinary.tool.start([
                "send", "--source", "testsrc:1920x1080@60", "--cpu-used", "-1", "--threads", "1", "--bitrate", "4000",
                "--frames", "300", "--to", "\(receiver.endpoint)", "--stats-json", statsPath,
            ])
            // Memory is sampled as frames arrive: once the encoder runs, then at every later frame.
            var residentEarly = 0, residentPeak = 0, framesSeen = 0
            while sender.isRunning || receiver.waitUntilReadable(timeoutMilliseconds: 0) {
                guard receiver.waitForFrames(1, idleTimeoutMilliseconds: 100) == 1 else { continue }
                framesSeen += 1
                let resident = Self.residentBytes(of: sender.pid)
                if framesSeen == 10 { residentEarly = resident }
                if framesSeen > 10 { residentPeak = max(residentPeak, resident) }
            }
            let result = sender.wait(timeout: TestPatience.seconds)
            #expect(result.status == 0, "\(result.stderr)")

            let stats = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: statsPath))) as? [String: Any])
            let captured = try #require(stats["framesCaptured"] as? Int)
            let encoded = try #require(stats["framesEncoded"] as? Int)
            let dropped = stats["framesDropped"] as? [String: Int] ?? [:]
            #expect(captured == 300)
            #expect(encoded + dropped.values.reduce(0, +) == captured)
            #expect(encoded < captured, "the encoder should not keep up: \(stats)")
            #expect((dropped["late"] ?? 0) + (dropped["tooOld"] ?? 0) > 0, "frames must be dropped, not queued: \(dropped)")
            #expect(framesSeen == encoded)
            // A sample of zero means the process ended between frames: no growth to judge there.
            #expect(residentEarly > 0)
            #expect(residentPeak - residentEarly < 8 << 20, "resident memory grew \((residentPeak - residentEarly) >> 20) MiB")
        }

        /// Resident set size of process `pid`, from /proc/PID/statm; 0 once it has exited.
        static func residentBytes(of pid: pid_t) -> Int {
            let fields = (try? String(contentsOfFile: "/proc/\(pid)/statm", encoding: .utf8))?.split(separator: " ") ?? []
            return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
        }
    }
}
