import ArgumentParser
import CameraRTP
import Foundation
import MediaCore

/// `--stats` and `--stats-json`.
struct StatsOptions: ParsableArguments {
    @Flag(help: "Show a live one-line status on stderr each second: fps, kbit/s, drops, packets.")
    var stats = false

    @Option(help: ArgumentHelp(
        "Write the final figures as JSON: frames captured/encoded/dropped by reason, keyframes, packets, bytes, bitrate, encode and (in real time) latency percentiles.",
        valueName: "file"))
    var statsJson: String?

    /// A place that cannot take the figures is refused before the run, not after it.
    func validate() throws {
        guard let statsJson else { return }
        do {
            try OutputFile.check(statsJson)
        } catch {
            throw ValidationError("--stats-json \(error)")
        }
    }

    /// Writes the final figures where `--stats-json` asks.
    func writeJSON(_ snapshot: StatsSnapshot) throws {
        guard let statsJson else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try OutputFile.write([UInt8](try encoder.encode(snapshot)), to: statsJson)
        } catch {
            throw CLIError.runtime("--stats-json \(error)")
        }
    }
}

/// The one-line live status: rates over the last second, totals since the start.
struct LiveStatusLine {
    private var previous: StatsSnapshot?

    mutating func line(for snapshot: StatsSnapshot) -> String {
        let seconds = max(0.001, snapshot.durationSeconds - (previous?.durationSeconds ?? 0))
        let fps = Double(snapshot.framesEncoded - (previous?.framesEncoded ?? 0)) / seconds
        let kbps = Double(snapshot.bytesSent - (previous?.bytesSent ?? 0)) * 8 / seconds / 1000
        previous = snapshot
        return String(
            format: "%6.1fs  %5.1f fps  %7.0f kbit/s  frames %d  dropped %d  keyframes %d  packets %d  latency p50 %.1f ms",
            snapshot.durationSeconds, fps, kbps, snapshot.framesEncoded, snapshot.totalDropped, snapshot.keyframes,
            snapshot.packetsSent, snapshot.latencyMs.p50) + (snapshot.sender.map(Self.network) ?? "")
    }

    /// What the receiver's feedback says: the rate congestion control aims at, RTT, loss and
    /// repairs; RTT and loss only once a receiver report came.
    private static func network(_ sender: SenderStatistics) -> String {
        var text = String(format: "  target %.0f kbit/s", sender.targetBitrateKbps.last)
        if let rtt = sender.rttMs { text += String(format: "  RTT %.0f ms", rtt.last) }
        if let lost = sender.receiverFractionLost { text += String(format: "  loss %.1f%%", lost * 100) }
        if sender.nackedPackets > 0 { text += "  retransmitted \(sender.packetsRetransmitted)/\(sender.nackedPackets)" }
        return text
    }
}
