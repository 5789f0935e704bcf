import ArgumentParser
import Logging

/// `--verbose`: the only place camrtp chooses how much its libraries log, and where.
package struct LoggingOptions: ParsableArguments {
    @Flag(name: [.short, .long], help: "Log what the pipeline does (twice for debug detail) on stderr.")
    var verbose: Int

    package init() {}

    var level: Logger.Level {
        switch verbose {
        case 0: .warning
        case 1: .info
        default: .debug
        }
    }
}

/// A camrtp subcommand: the entry point sets up its logging, then awaits `execute()`.
package protocol CamrtpCommand: ParsableCommand, Sendable {
    var logging: LoggingOptions { get }
    func execute() async throws
}

extension LoggingOptions {
    /// Sends every log line to stderr, so stdout carries only a command's output (an SDP, JSON);
    /// a stderr that is closed or full loses the line and nothing else.
    static func bootstrap(level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler(label: label, stream: StandardErrorLogStream())
            handler.logLevel = level
            return handler
        }
    }
}
