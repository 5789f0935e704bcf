import ArgumentParser
import VP8

/// VP8 encoder choices shared by `send` and `record`.
struct EncoderOptions: ParsableArguments {
    // Unconditional, so that negative values read as values (and get a message about the value), not flags.
    @Option(parsing: .unconditional, help: ArgumentHelp("Target bitrate in kbit/s (CBR).", valueName: "kbps"))
    var bitrate: Int = 1500

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Force a keyframe at least this often, in seconds; 0 for keyframes only on request.",
        discussion: "Plain RTP receivers cannot ask for a keyframe, so one comes every 2 s by default.",
        valueName: "seconds"))
    var keyframeInterval: Double = 2

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "libvpx cpu-used, -16...16: -6 (the default, as WebRTC on x86) is fast; values nearer 0 are slower and look better.",
        valueName: "n"))
    var cpuUsed: Int = -6

    @Option(parsing: .unconditional, help: ArgumentHelp("Encoder threads; by default chosen from the picture size and cores.", valueName: "n"))
    var threads: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "libvpx temporal denoiser, 0 (off) to 6; 4 (adaptive) is WebRTC's choice on x86.", valueName: "n"))
    var noiseSensitivity: Int = 4

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "libvpx static threshold: skip blocks that changed less than this; WebRTC uses 1.", valueName: "n"))
    var staticThreshold: Int = 1

    func validate() throws {
        guard (1...100_000).contains(bitrate) else { throw ValidationError("--bitrate must be 1...100000 kbit/s, not \(bitrate)") }
        guard keyframeInterval >= 0 && keyframeInterval <= 3600 else {
            throw ValidationError("--keyframe-interval must be 0...3600 seconds, not \(keyframeInterval)")
        }
        guard (-16...16).contains(cpuUsed) else { throw ValidationError("--cpu-used must be in -16...16, not \(cpuUsed)") }
        if let threads, !(1...16).contains(threads) { throw ValidationError("--threads must be 1...16, not \(threads)") }
        guard (0...6).contains(noiseSensitivity) else {
            throw ValidationError("--noise-sensitivity must be 0...6, not \(noiseSensitivity)")
        }
        guard staticThreshold >= 0 else { throw ValidationError("--static-threshold must be 0 or more, not \(staticThreshold)") }
    }

    func settings(width: Int, height: Int, fps: Double) -> VP8EncoderSettings {
        var settings = VP8EncoderSettings(
            width: width, height: height, maxFramerate: fps, bitrateKbps: bitrate, cpuUsed: cpuUsed,
            threads: threads, keyframeIntervalSeconds: keyframeInterval > 0 ? keyframeInterval : nil)
        settings.noiseSensitivity = noiseSensitivity
        settings.staticThreshold = staticThreshold
        return settings
    }
}
