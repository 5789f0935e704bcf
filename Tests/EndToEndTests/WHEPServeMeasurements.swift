import Foundation
import Glibc
import MediaCore
import TestSupport
import Testing

extension EndToEnd.WHEPServeEndToEndTests {
    /// Figures, not checks (CAMRTP_WHEP_MEASURE=1): how long a viewer joining a watched stream
    /// waits for its first decoded frame, and what camrtp costs in CPU and memory with 0, 1, 2
    /// and 4 aiortc viewers of a 640x480 stream. The viewers decode on the same two cores, so the
    /// CPU figures are camrtp's own process only.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["CAMRTP_WHEP_MEASURE"] == "1"))
    func measureLateJoinAndCostPerViewer() async throws {
        // Late joiners: one viewer watches; five more join one after another.
        do {
            let bed = try Bed(source: "testsrc:640x480@30")
            defer { bed.stop() }
            let watcher = try bed.viewer(["--frames", "100000"])
            defer { watcher.interrupt(); _ = watcher.wait(timeout: 10) }
            _ = watcher.waitForLine(containing: "\"frame\"", in: .stdout, timeout: 60)
            var delays: [Double] = []
            for _ in 0..<5 {
                let late = try bed.viewer(["--frames", "10", "--delete"])
                let posted = Self.event(late.waitForLine(containing: "\"post\"", in: .stdout))?["t"] as? Double
                let shown = Self.event(late.waitForLine(containing: "\"frame\"", in: .stdout, timeout: 60))?["t"] as? Double
                _ = late.wait(timeout: 60)
                if let posted, let shown { delays.append((shown - posted) * 1000) }
            }
            let sorted = delays.sorted()
            print("late joiner, POST answered to first decoded frame (ms): \(delays.map { Int($0) }) median \(Int(sorted[sorted.count / 2]))")
            let joins = bed.server.output(.stderr).split(separator: "\n").filter { $0.contains("first frame") }
            for line in joins { print("  \(line)") }
        }

        // Cost per viewer.
        for viewers in [0, 1, 2, 4] {
            let bed = try Bed(source: "testsrc:640x480@30")
            defer { bed.stop() }
            var players: [ExternalTool.Running] = []
            defer { for player in players { player.interrupt(); _ = player.wait(timeout: 10) } }
            for _ in 0..<viewers {
                let player = try bed.viewer(["--frames", "100000"])
                _ = player.waitForLine(in: .stdout, timeout: 60) { $0.contains("\"frame\"") && $0.contains("\"n\": 30,") }
                players.append(player)
            }
            let pid = bed.server.pid
            let before = Self.cpuTicks(pid)
            let start = MonotonicClock.nowNs()
            sleep(10)
            let seconds = Double(MonotonicClock.nowNs() - start) / 1e9
            let cpu = Double(Self.cpuTicks(pid) - before) / Double(sysconf(Int32(_SC_CLK_TCK))) / seconds * 100
            let rss = Self.statusField(pid, "VmRSS:")
            print("\(viewers) viewers: camrtp CPU \(Int(cpu.rounded())) % of one core, RSS \(rss / 1024) MB")
        }
    }

    /// utime + stime of a process, in clock ticks (proc(5)).
    static func cpuTicks(_ pid: pid_t) -> Int {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // Fields after the command: state is 3rd overall, utime 14th and stime 15th.
        return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
    }

    /// A kB figure from /proc/PID/status.
    static func statusField(_ pid: pid_t, _ name: String) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix(name) } ?? ""
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }
}
