import Foundation
import Glibc
import MediaCore
import TestSupport
import Testing

extension EndToEnd.ServeAccessEndToEndTests {
    /// Figures, not checks (CAMRTP_WHEP_MEASURE=1): what camrtp costs per aiortc viewer of a
    /// 640x480 stream served over plain HTTP without a token, and over HTTPS with one (the
    /// viewers' offers go through TLS and the token check; their media is DTLS-SRTP either way),
    /// with /metrics scraped once a second as a busy Prometheus would. camrtp's process only.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["CAMRTP_WHEP_MEASURE"] == "1"))
    func measureCostPerViewerOverHTTPS() async throws {
        typealias Figures = EndToEnd.WHEPServeEndToEndTests
        for secure in [false, true] {
            for viewers in [0, 1, 2, 4] {
                let secrets = try Secrets(token: "measure-token")
                let bed = try Bed(source: "testsrc:640x480@30", secure ? secrets.serveArguments : [])
                defer { bed.stop() }
                let viewerArguments = secure ? ["--token", "measure-token", "--cafile", secrets.certificate.certificatePath] : []
                var players: [ExternalTool.Running] = []
                defer { for player in players { player.interrupt(); _ = player.wait(timeout: 10) } }
                for _ in 0..<viewers {
                    let player = try bed.viewer(["--frames", "100000"] + viewerArguments)
                    _ = player.waitForLine(in: .stdout, timeout: 60) { $0.contains("\"frame\"") && $0.contains("\"n\": 30,") }
                    players.append(player)
                }
                let pid = bed.server.pid
                let before = Figures.cpuTicks(pid)
                let start = MonotonicClock.nowNs()
                var scrapeArguments = ["-s", "-o", "/dev/null"]
                if secure { scrapeArguments += ["--cacert", secrets.certificate.certificatePath, "-H", "Authorization: Bearer measure-token"] }
                for _ in 0..<10 {
                    _ = try bed.namespace.start(["/usr/bin/curl"] + scrapeArguments + [bed.base + "metrics"]).wait(timeout: 10)
                    try await Task.sleep(for: .seconds(1))
                }
                let seconds = Double(MonotonicClock.nowNs() - start) / 1e9
                let cpu = Double(Figures.cpuTicks(pid) - before) / Double(sysconf(Int32(_SC_CLK_TCK))) / seconds * 100
                let rss = Figures.statusField(pid, "VmRSS:")
                print("\(secure ? "https + token" : "http, no token"), \(viewers) viewers: camrtp CPU \(String(format: "%.1f", cpu)) % of one core, RSS \(rss / 1024) MB")
            }
        }
    }
}
