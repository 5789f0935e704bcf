import ArgumentParser
import CongestionControl
import Pacing
import RTPSession
import VP8

/// VP8 encoder choices shared by the streaming commands and `record`.
package struct EncoderOptions: ParsableArguments {
    // Unconditional, so that negative values read as values (and get a message about the value), not flags.
    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Bitrate in kbit/s: where a stream starts (CBR; congestion control moves it between --min-bitrate and --max-bitrate as the receiver's feedback allows), a recording's average (VBR).",
        valueName: "kbps"))
    package var bitrate: Int = 1500

    @Option(parsing: .unconditional, help: ArgumentHelp("Lowest bitrate congestion control may choose, in kbit/s.", valueName: "kbps"))
    package var minBitrate: Int = 30

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Highest bitrate congestion control may choose, in kbit/s; --bitrate by default, so the rate only goes down from there.",
        valueName: "kbps"))
    package var maxBitrate: Int?

    @Option(help: ArgumentHelp(
        "on: packets leave at the pacing rate in bursts of at most 40 ms (a keyframe does not arrive as one burst); off: each frame leaves at once.",
        valueName: "on|off"))
    var pacing: Switch = .on

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Force a keyframe at least this often, in seconds; 0 for keyframes only on request.",
        discussion: "Plain RTP receivers cannot ask for a keyframe, so one comes every 2 s by default; publish defaults to 0, since WebRTC peers ask (PLI).",
        valueName: "seconds"))
    var keyframeInterval: Double?

    /// Where keyframes come from without --keyframe-interval: every 2 s for plain RTP receivers.
    static let defaultKeyframeIntervalSeconds = 2.0

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "libvpx cpu-used, -16...16: -6 (the default, as WebRTC on x86) is fast; values nearer 0 are slower and look better.",
        valueName: "n"))
    var cpuUsed: Int = -6

    @Option(parsing: .unconditional, help: ArgumentHelp("Encoder threads; by default chosen from the picture size and cores.", valueName: "n"))
    var threads: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "libvpx temporal denoiser, 0 (off) to 6; streams use 4 (adaptive, WebRTC's choice on x86), recordings 0.", valueName: "n"))
    var noiseSensitivity: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "libvpx static threshold: skip blocks that changed less than this; streams use 1 (as WebRTC), recordings 0.", valueName: "n"))
    var staticThreshold: Int?

    package init() {}

    package func validate() throws {
        guard (1...100_000).contains(bitrate) else { throw ValidationError("--bitrate must be 1...100000 kbit/s, not \(bitrate)") }
        guard (1...bitrate).contains(minBitrate) else {
            throw ValidationError("--min-bitrate must be 1...--bitrate (\(bitrate)) kbit/s, not \(minBitrate)")
        }
        if let maxBitrate, !(bitrate...100_000).contains(maxBitrate) {
            throw ValidationError("--max-bitrate must be --bitrate (\(bitrate))...100000 kbit/s, not \(maxBitrate)")
        }
        if let keyframeInterval, !(keyframeInterval >= 0 && keyframeInterval <= 3600) {
            throw ValidationError("--keyframe-interval must be 0...3600 seconds, not \(keyframeInterval)")
        }
        guard (-16...16).contains(cpuUsed) else { throw ValidationError("--cpu-used must be in -16...16, not \(cpuUsed)") }
        if let threads, !(1...16).contains(threads) { throw ValidationError("--threads must be 1...16, not \(threads)") }
        if let noiseSensitivity, !(0...6).contains(noiseSensitivity) {
            throw ValidationError("--noise-sensitivity must be 0...6, not \(noiseSensitivity)")
        }
        if let staticThreshold, staticThreshold < 0 {
            throw ValidationError("--static-threshold must be 0 or more, not \(staticThreshold)")
        }
    }

    /// A live stream's encoder (WebRTC's settings), with `--keyframe-interval` defaulting to the
    /// command's choice.
    func settings(defaultKeyframeIntervalSeconds: Double) -> VP8EncoderSettings {
        applied(to: VP8EncoderSettings(
            bitrateKbps: bitrate, cpuUsed: cpuUsed, threads: threads, keyframes: keyframes(defaultIntervalSeconds: defaultKeyframeIntervalSeconds)))
    }

    /// A file's encoder (`record`): VBR without a stream's limits, see `VP8EncoderSettings.recording`.
    var recordingSettings: VP8EncoderSettings {
        applied(to: .recording(
            bitrateKbps: bitrate, cpuUsed: cpuUsed, threads: threads,
            keyframes: keyframes(defaultIntervalSeconds: Self.defaultKeyframeIntervalSeconds)))
    }

    private func keyframes(defaultIntervalSeconds: Double) -> KeyframeSchedule {
        let interval = keyframeInterval ?? defaultIntervalSeconds
        return interval > 0 ? .every(seconds: interval) : .onRequest
    }

    /// The options given on the command line, over the profile's own values.
    private func applied(to profile: VP8EncoderSettings) -> VP8EncoderSettings {
        var settings = profile
        if let noiseSensitivity { settings.noiseSensitivity = noiseSensitivity }
        if let staticThreshold { settings.staticThreshold = staticThreshold }
        return settings
    }

    /// The congestion controller's range: it starts at --bitrate.
    var congestionControl: CongestionControllerConfiguration {
        CongestionControllerConfiguration(
            startBitrateBps: Int64(bitrate) * 1000, minBitrateBps: Int64(minBitrate) * 1000,
            maxBitrateBps: Int64(maxBitrate ?? bitrate) * 1000)
    }

    var pacer: PacerConfiguration {
        PacerConfiguration(isPacingEnabled: pacing == .on)
    }

    /// How the sender behaves: these rates and pacing, with the packet size and repair modes of
    /// the command's wire options.
    package func tuning(mtu: Int, retransmission: Retransmission, fec: FECMode) -> SenderTuning {
        SenderTuning(mtu: mtu, retransmission: retransmission, fec: fec, congestionControl: congestionControl, pacing: pacer)
    }
}

/// An on/off option value.
enum Switch: String, ExpressibleByArgument, CaseIterable {
    case on, off
}
