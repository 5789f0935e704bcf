import Foundation
import CameraRTP
import MediaCore
import TestSupport
import Testing

/// One real-time run of the whole loop: `camrtp send` → the impairment relay (a bottleneck on
/// the forward link, delay both ways, an RTCP lane back) → GStreamer's rtpbin, whose
/// transport-wide feedback returns through the relay to camrtp's RTCP port. It ends when camrtp
/// does (`--duration`); then the relay and GStreamer are stopped and what each wrote is read.
///
/// With `CAMRTP_CC_ARTIFACTS=FOLDER` in the environment the trace, the relay's statistics and
/// its packet log are kept there as NAME.trace.csv, NAME.relay.json and NAME.packets.csv, for
/// `Benchmarks/plot_bwe.py NAME.trace.csv NAME.relay.json --packet-log NAME.packets.csv -o NAME.png`.
struct CongestionLoopRun {
    var name: String
    var durationSeconds: Int
    /// The relay's forward impairments (rate, queue, schedule), besides the delays.
    var bottleneck: [String]
    var oneWayDelayMs = 20
    var camrtpOptions: [String] = []
    /// GStreamer's NACKs (and so camrtp's retransmissions) on top of its transport-wide feedback.
    var receiverSendsNACKs = true

    struct Result {
        let camrtp: StatsSnapshot
        let sender: SenderStatistics
        let relay: ImpairmentRelayStats
        let packets: RelayPacketLog
        let trace: BWETrace
        /// Relay time (seconds since its first packet) at the trace's time 0.
        let traceOffsetS: Double
        let camrtpLog: String

        func window(fromS: Double, toS: Double, oneWayDelayMs: Int) -> BottleneckWindow {
            BottleneckWindow(stats: relay, log: packets, oneWayDelayMs: Double(oneWayDelayMs), fromS: fromS, toS: toS)
        }

        /// The time-weighted mean target over [fromS, toS) of relay time, in kbit/s.
        func meanTargetKbps(fromS: Double, toS: Double) -> Double? {
            trace.meanTargetBps(fromS: fromS - traceOffsetS, toS: toS - traceOffsetS).map { $0 / 1000 }
        }

        /// The trace's records over [fromS, toS) of relay time.
        func targetsKbps(fromS: Double, toS: Double) -> [Double] {
            trace.records(fromS: fromS - traceOffsetS, toS: toS - traceOffsetS).map { Double($0.targetBitrateBps) / 1000 }
        }
    }

    func run() throws -> Result {
        let folder = TemporaryDirectory()
        let (tracePath, statsPath, logPath) = (folder.file("trace.csv"), folder.file("stats.json"), folder.file("packets.csv"))
        let (relay, gstreamer) = try startRelayAndReceiver(packetLog: logPath)
        let (rtpLane, rtcpLane) = (relay.lanes[0], relay.lanes[1])
        let localPort = Self.freePairBelowEphemeralPorts()
        defer {
            gstreamer.interrupt()
            _ = gstreamer.wait(timeout: 10)
        }
        let send = try CamrtpBinary.run(
            [
                "send", "--source", "testsrc:640x360@30", "--to", "127.0.0.1:\(rtpLane.listenPort)",
                "--rtcp-port", "\(rtcpLane.listenPort)", "--local-port", "\(localPort)", "--duration", "\(durationSeconds)",
                "--trace-bwe", tracePath, "--stats-json", statsPath,
            ] + camrtpOptions, timeout: Double(durationSeconds) + 60)
        let relayStats = try relay.stop()
        try #require(send.status == 0, "camrtp send failed: \(send.stderr)")
        if !gstreamer.isRunning { Issue.record("GStreamer ended before camrtp: \(gstreamer.wait(timeout: 1).stderr)") }

        let camrtp = try JSONDecoder().decode(StatsSnapshot.self, from: Data(contentsOf: URL(fileURLWithPath: statsPath)))
        let sender = try #require(camrtp.sender, "camrtp wrote no sender statistics")
        let packets = try RelayPacketLog(path: logPath)
        let first = try #require(packets.firstForwardArrivalNs, "nothing reached the relay")
        try keepArtifacts(trace: tracePath, relay: relayStats, packets: logPath)
        return Result(
            camrtp: camrtp, sender: sender, relay: relayStats, packets: packets, trace: try BWETrace(path: tracePath),
            traceOffsetS: Double(first) / 1e9, camrtpLog: send.stderr)
    }

    /// The relay in front of GStreamer's ports, then GStreamer. Should another program take the
    /// pair just found free, both are stopped and a fresh pair is tried.
    private func startRelayAndReceiver(packetLog: String) throws -> (ImpairmentRelay, ExternalTool.Running) {
        let delay = ["--forward-delay", "\(oneWayDelayMs)", "--reverse-delay", "\(oneWayDelayMs)"]
        var attempt = 1
        while true {
            let rtpPort = Self.freePairBelowEphemeralPorts()
            let relay = try ImpairmentRelay(
                lanes: [.init(targetPort: rtpPort), .init(targetPort: rtpPort + 1)],
                options: bottleneck + delay + ["--packet-log", packetLog])
            var receiver = GStreamerRtpbin(rtpPort: rtpPort, feedbackPort: relay.lanes[1].innerPort, output: nil)
            receiver.twccExtensionID = 3
            receiver.retransmission = receiverSendsNACKs ? .resend : .off
            do {
                return (relay, try receiver.start())
            } catch where attempt < 3 {
                _ = try? relay.stop()
                attempt += 1
            }
        }
    }

    /// A free pair below the kernel's ephemeral range, so that the relay's own sockets (port 0)
    /// cannot be given it before GStreamer or camrtp binds it.
    private static func freePairBelowEphemeralPorts() -> UInt16 {
        let range = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let lowest = range.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32_768
        while true {
            let port = UDPPorts.freePair()
            // UDPPorts picks from 20 000 up: below that no pair can avoid the range.
            if Int(port) + 1 < lowest || lowest <= 20_001 { return port }
        }
    }

    private func keepArtifacts(trace: String, relay: ImpairmentRelayStats, packets: String) throws {
        guard let folder = ProcessInfo.processInfo.environment["CAMRTP_CC_ARTIFACTS"], !folder.isEmpty else { return }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(relay).write(to: URL(fileURLWithPath: "\(folder)/\(name).relay.json"))
        for (source, suffix) in [(trace, "trace.csv"), (packets, "packets.csv")] {
            let destination = "\(folder)/\(name).\(suffix)"
            try? FileManager.default.removeItem(atPath: destination)
            try FileManager.default.copyItem(atPath: source, toPath: destination)
        }
    }
}
