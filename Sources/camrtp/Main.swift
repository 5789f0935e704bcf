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
import WebRTC
import WHIP

@main
struct Main {
    /// Runs the command and maps every failure to one line on stderr and an exit code:
    /// 0 success, 2 bad usage or input, 1 failure at run time.
    nonisolated static func main() async {
        // Streams first, so that the signal pipe cannot take the number of a missing stdout.
        StandardStreams.prepare()
        StopSignals.install()
        let code: Int32
        do {
            var command = try Camrtp.parseAsRoot()
            if let command = command as? any CamrtpCommand {
                LoggingOptions.bootstrap(level: command.logging.level)
                try await command.execute()
            } else {
                try command.run()
            }
            code = 0
        } catch {
            code = report(error)
        }
        exit(code)
    }

    private static func report(_ error: any Error) -> Int32 {
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
        case let error as WHIPError:
            say("\(error)")
            switch error {
            case .invalidURL, .caFile: return 2
            default: return 1
            }
        case let error as WebRTCError:
            say("\(error)")
            return 1
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
            let exitCode = Camrtp.exitCode(for: error)
            if exitCode == .success {
                // --help and --version print their text and succeed.
                do {
                    try StandardStreams.print(Camrtp.fullMessage(for: error) + "\n")
                    return 0
                } catch {
                    return report(error)
                }
            }
            if exitCode == .validationFailure {
                let message = Camrtp.message(for: error).split(separator: "\n").first.map(String.init) ?? "bad usage"
                say("\(message) (see '\(helpCommand)')")
                return 2
            }
            say("\(error)")
            return 1
        }
    }

    /// The help that explains a usage error: the subcommand's when one was named.
    private static var helpCommand: String {
        let names = Camrtp.configuration.subcommands.compactMap { $0.configuration.commandName }
        guard let named = CommandLine.arguments.dropFirst().first, names.contains(named) else { return "camrtp --help" }
        return "camrtp \(named) --help"
    }
}
