import ArgumentParser
import CameraRTP
import FoundationEssentials
import Glibc
import MediaCore

/// `--stats` and `--stats-json`.
package struct StatsOptions: ParsableArguments {
    @Flag(help: "Show a live one-line status on stderr each second: fps, kbit/s, drops, packets.")
    var stats = false

    @Option(help: ArgumentHelp(
        "Write the final figures as JSON: frames captured/encoded/dropped by reason, keyframes, packets, bytes, bitrate, encode and (in real time) latency percentiles.",
        valueName: "file"))
    var statsJson: String?

    package init() {}

    /// A place that cannot take the figures is refused before the run, not after it.
    package func validate() throws {
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
        return "\(DecimalText.fixed(snapshot.durationSeconds, decimals: 1, width: 6))s  "
            + "\(DecimalText.fixed(fps, decimals: 1, width: 5)) fps  \(DecimalText.fixed(kbps, decimals: 0, width: 7)) kbit/s  "
            + "frames \(snapshot.framesEncoded)  dropped \(snapshot.totalDropped)  keyframes \(snapshot.keyframes)  "
            + "packets \(snapshot.packetsSent)  latency p50 \(DecimalText.fixed(snapshot.latencyMs.p50, decimals: 1)) ms"
            + (snapshot.sender.map(Self.network) ?? "")
    }

    /// What the receiver's feedback says: the rate congestion control aims at, RTT, loss and
    /// repairs; RTT and loss only once a receiver report came.
    private static func network(_ sender: SenderStatistics) -> String {
        var text = "  target \(DecimalText.fixed(sender.targetBitrateKbps.last, decimals: 0)) kbit/s"
        if let rtt = sender.rttMs { text += "  RTT \(DecimalText.fixed(rtt.last, decimals: 0)) ms" }
        if let lost = sender.receiverFractionLost { text += "  loss \(DecimalText.fixed(lost * 100, decimals: 1))%" }
        if sender.nackedPackets > 0 { text += "  retransmitted \(sender.packetsRetransmitted)/\(sender.nackedPackets)" }
        return text
    }
}
