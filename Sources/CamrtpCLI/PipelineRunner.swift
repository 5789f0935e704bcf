import CameraRTP
import Glibc

/// Runs a pipeline for a command: stops it cleanly on SIGINT or SIGTERM, shows `--stats`, writes
/// `--stats-json`, and turns a run-time failure into exit code 1 (bad input into 2).
package enum PipelineRunner {
    /// `extra`: a command's own counts for `--stats-json`, read once the stream has ended.
    package static func run(
        _ pipeline: StreamPipeline, stats options: StatsOptions, extra: @Sendable () -> [String: Int] = { [:] }
    ) async throws -> StatsSnapshot {
        let status = options.stats ? Task {
            var line = LiveStatusLine()
            // On a terminal the line is redrawn in place; into a file or a pipe, one line a second.
            let redraws = isatty(STDERR_FILENO) == 1
            var printed = false
            for await event in pipeline.events {
                if case .stats(let snapshot) = event {
                    let text = line.line(for: snapshot)
                    StandardStreams.printError(redraws ? "\r" + text + "\u{1B}[K" : text + "\n")
                    printed = true
                }
            }
            if printed && redraws { StandardStreams.printError("\n") }
        } : nil

        let snapshot: StatsSnapshot
        do {
            snapshot = try await StopSignals.stopping(with: { pipeline.requestStop() }) { try await pipeline.run() }
        } catch {
            await status?.value
            try? options.writeJSON(pipeline.stats.snapshot, extra: extra())
            throw error
        }
        await status?.value
        try options.writeJSON(snapshot, extra: extra())
        // A damaged file ends its stream after its last good frame, which is encoded and written;
        // the damage is still the input's fault.
        if let damage = pipeline.source.endedEarly() { throw damage }
        return snapshot
    }
}
