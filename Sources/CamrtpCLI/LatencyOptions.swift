import ArgumentParser
import RTP

/// What receivers are told about a frame's timing: when it was captured (abs-capture-time) and
/// how long they may hold it before showing it (the playout delay). `send`, `sdp` and `loopback`
/// take them through `StreamOptions`, `publish` and `serve` through `WebRTCOptions`.
package struct LatencyOptions: ParsableArguments {
    /// What `serve` asks its viewers for unless told otherwise: Chromium shows each frame as soon
    /// as it is decoded (MIN 0, MAX at most 500 ms), and the viewer page's "smooth" (200 ms) fits.
    package static let servePlayoutDelay = PlayoutDelay(minimumMs: 0, maximumMs: 400)!

    // Unconditional, so that a negative value reaches validate() rather than reading as an option.
    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Ask receivers to show each frame between MIN and MAX milliseconds after it arrives (the playout-delay header extension; steps of 10 ms up to 40950), or off.",
        discussion: "Chromium shows each frame as soon as it is decoded with MIN 0 and MAX at most 500; 0-0 also paces decoding. serve asks for 0-400 unless given; send and publish ask for nothing.",
        valueName: "min-max|off"))
    package var playoutDelay: String?

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(
        "Stamp frames with their capture time (the abs-capture-time header extension, about once a second and on keyframes).",
        discussion: "A receiver learns each frame's capture time on the sender's clock, the one its sender reports use."))
    package var absCaptureTime = true

    package init() {}

    package func validate() throws {
        _ = try requestedPlayoutDelay()
    }

    /// The playout delay `--playout-delay` asks for, `defaultDelay` without it, nil with `off`.
    package func requestedPlayoutDelay(default defaultDelay: PlayoutDelay? = nil) throws -> PlayoutDelay? {
        guard let text = playoutDelay else { return defaultDelay }
        if text == "off" { return nil }
        let bounds = text.split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let minimum = Int(bounds[0]), let maximum = Int(bounds[1]) else {
            let negative = text.hasPrefix("-") || text.contains("--")
            throw ValidationError(
                negative
                    ? "--playout-delay \"\(text)\": delays cannot be negative; give MIN-MAX in milliseconds, such as 0-200"
                    : "--playout-delay \"\(text)\": expected MIN-MAX in milliseconds, such as 0-200, or off")
        }
        guard minimum <= PlayoutDelay.maximumMs, maximum <= PlayoutDelay.maximumMs else {
            throw ValidationError(
                "--playout-delay \(text): the extension carries at most \(PlayoutDelay.maximumMs) ms (40.95 s); give smaller values")
        }
        guard minimum <= maximum else {
            throw ValidationError("--playout-delay \(text): MIN is above MAX; give the smaller value first, such as \(maximum)-\(minimum)")
        }
        guard let delay = PlayoutDelay(minimumMs: minimum, maximumMs: maximum) else {
            throw ValidationError(
                "--playout-delay \(text): the extension counts in steps of 10 ms; give multiples of 10, such as \(minimum / 10 * 10)-\((maximum + 9) / 10 * 10)")
        }
        return delay
    }
}
