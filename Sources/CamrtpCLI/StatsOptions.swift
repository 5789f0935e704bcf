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

    /// Writes the final figures where `--stats-json` asks, with a command's own counts beside
    /// them (`publish`: `reconnections`, `iceRestarts`).
    func writeJSON(_ snapshot: StatsSnapshot, extra: [String: Int] = [:]) throws {
        guard let statsJson else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try OutputFile.write([UInt8](try encoder.encode(StatsReport(snapshot: snapshot, extra: extra))), to: statsJson)
        } catch {
            throw CLIError.runtime("--stats-json \(error)")
        }
    }
}

/// The pipeline's figures and a command's own counts in one JSON object.
private struct StatsReport: Encodable {
    let snapshot: StatsSnapshot
    let extra: [String: Int]

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        try snapshot.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        for (name, value) in extra { try container.encode(value, forKey: Key(stringValue: name)) }
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

    /// What the receiver's feedback says: the rate congestion control aims at, RTT, loss,
    /// repairs and the FEC in force; RTT and loss only once a receiver report came.
    private static func network(_ sender: SenderStatistics) -> String {
        var text = "  target \(DecimalText.fixed(sender.targetBitrateKbps.last, decimals: 0)) kbit/s"
        if let rtt = sender.rttMs { text += "  RTT \(DecimalText.fixed(rtt.last, decimals: 0)) ms" }
        if let lost = sender.receiverFractionLost { text += "  loss \(DecimalText.fixed(lost * 100, decimals: 1))%" }
        if sender.nackedPackets > 0 { text += "  retransmitted \(sender.packetsRetransmitted)/\(sender.nackedPackets)" }
        if sender.fecPacketsSent > 0 { text += "  FEC \(DecimalText.fixed(sender.fecProtection * 100, decimals: 0))%" }
        return text
    }
}
