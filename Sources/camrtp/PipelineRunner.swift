import CameraRTP
import Dispatch
import Foundation

/// Runs a pipeline for a command: stops it cleanly on SIGINT or SIGTERM, shows `--stats`, writes
/// `--stats-json`, and turns a run-time failure into exit code 1 (bad input into 2).
enum PipelineRunner {
    static func run(_ pipeline: StreamPipeline, stats options: StatsOptions) async throws -> StatsSnapshot {
        // A parent may have left these blocked; Ctrl-C and kill must still stop the stream.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        sigprocmask(SIG_UNBLOCK, &stopSignals, nil)
        let signals = [SIGINT, SIGTERM].map { number -> DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { pipeline.requestStop() }
            source.resume()
            return source
        }
        defer { signals.forEach { $0.cancel() } }

        let status = options.stats ? Task {
            var line = LiveStatusLine()
            var printed = false
            for await event in pipeline.events {
                if case .stats(let snapshot) = event {
                    printStatus(line.line(for: snapshot))
                    printed = true
                }
            }
            if printed { FileHandle.standardError.write(Data("\n".utf8)) }
        } : nil

        let snapshot: StatsSnapshot
        do {
            snapshot = try await pipeline.run()
        } catch {
            await status?.value
            try? options.writeJSON(pipeline.stats.snapshot)
            throw error
        }
        await status?.value
        try options.writeJSON(snapshot)
        return snapshot
    }

    private static func printStatus(_ line: String) {
        FileHandle.standardError.write(Data(("\r" + line + "\u{1B}[K").utf8))
    }
}
