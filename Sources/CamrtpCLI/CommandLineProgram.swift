import ArgumentParser
import Capture
import FakeV4L2
import CameraRTP
import Glibc
import MediaCore
import RTPSender
import RTPSession
import Transport
import VP8

/// The body of camrtp's `main` (and camrtp-webrtc's): runs the command and maps every failure to
/// one line on stderr and an exit code: 0 success, 2 bad usage or input, 1 failure at run time.
package enum CommandLineProgram {
    /// Sets up the standard streams and the stop signals. Call it first in `main`, before its
    /// first `await`: a nonisolated async call leaves the main thread for the concurrency runtime,
    /// whose start opens descriptors that would take the number of a missing stdout.
    package static func prepare() {
        // Streams first, so that the signal pipe cannot take the number of a missing stdout.
        StandardStreams.prepare()
        StopSignals.install()
    }

    /// Parses the arguments with `Root` and runs the command, after `prepare()`. `failure`
    /// reports the errors of the program's own modules (one line) and gives their exit code, or
    /// returns nil for the rest.
    package static func run<Root: ParsableCommand>(
        _ root: Root.Type, failure: @Sendable (any Error) -> Int32? = { _ in nil }
    ) async -> Never {
        let code: Int32
        do {
            var command = try Root.parseAsRoot()
            if let command = command as? any CamrtpCommand {
                LoggingOptions.bootstrap(level: command.logging.level)
                try await command.execute()
            } else {
                try command.run()
            }
            code = 0
        } catch {
            code = failure(error) ?? report(error, root: Root.self)
        }
        exit(code)
    }

    private static func report<Root: ParsableCommand>(_ error: any Error, root: Root.Type) -> Int32 {
        func say(_ line: String) { printNote(line) }
        switch error {
        case let error as CLIError:
            say(error.message)
            return error.kind == .usage ? 2 : 1
        case is Y4MError, is SourceSpecError, is EndpointError, is SRTPKeyError, is FakeCameraSpecError,
             is CameraControlError, is SendSessionError:
            say("\(error)")
            return 2
        case let error as RTPSenderError:
            if case .socket(let socketError) = error, socketError.errno == .addressInUse {
                say("\(error): another program uses that port; choose another --local-port")
                return 2
            }
            say("\(error)")
            if case .socket = error { return 1 }
            if case .srtp = error { return 1 }
            return 2
        case let error as CameraCaptureError:
            say("\(error)")
            switch error {
            case .stalled, .noDecodableFrames: return 1
            default: return 2
            }
        case let error as V4L2Error where [ENOENT, EACCES, ENOTTY].contains(error.code):
            // A node that is missing, not ours to open, or not a camera: the user can fix the input.
            say("\(error)")
            return 2
        case let error as OutputFileError:
            say("\(error)")
            return error.isDiskFailure ? 1 : 2
        case is VPXError, is IVFError:
            // Paths and settings are checked before the run, so these fail while running.
            say("\(error)")
            return 1
        default:
            let exitCode = Root.exitCode(for: error)
            if exitCode == .success {
                // --help and --version print their text and succeed.
                do {
                    try StandardStreams.print(Root.fullMessage(for: error) + "\n")
                    return 0
                } catch {
                    return report(error, root: root)
                }
            }
            if exitCode == .validationFailure {
                let message = Root.message(for: error).split(separator: "\n").first.map(String.init) ?? "bad usage"
                say("\(message) (see '\(helpCommand(root))')")
                return 2
            }
            say("\(error)")
            return 1
        }
    }

    /// The help that explains a usage error: the subcommand's when one was named.
    private static func helpCommand<Root: ParsableCommand>(_ root: Root.Type) -> String {
        let names = Root.configuration.subcommands.compactMap { $0.configuration.commandName }
        guard let named = CommandLine.arguments.dropFirst().first, names.contains(named) else { return "camrtp --help" }
        return "camrtp \(named) --help"
    }
}

extension CommandConfiguration {
    /// camrtp's own description, with the commands of the program that runs it.
    package static func camrtp(subcommands: [any ParsableCommand.Type]) -> CommandConfiguration {
        CommandConfiguration(
            commandName: "camrtp",
            abstract: "Capture a camera and stream it as VP8 over RTP.",
            discussion: """
                No camera? Every command takes --source testsrc (a moving test pattern with a frame \
                counter) or --source y4m:FILE.

                Try it on one machine:  camrtp loopback --source testsrc
                Record to a file:       camrtp record --source testsrc --frames 300 --out clip.ivf
                Publish over WebRTC:    camrtp publish --source testsrc --whip http://127.0.0.1:8080/whip
                Watch in a browser:     camrtp serve --source testsrc  (open the URL it prints)

                Exit codes: 0 success, 2 bad usage or input, 1 a failure while running. Ctrl-C or \
                SIGTERM stops a running stream cleanly (exit 0); before the stream starts they end \
                camrtp at once with 130 or 143.
                """,
            version: "0.1.0",
            subcommands: subcommands)
    }
}
