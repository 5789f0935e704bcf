import ArgumentParser
import Capture
import FakeV4L2
import CameraRTP
import Foundation
import RTPSender
import Transport
import VP8

@main
struct Main {
    /// Runs the command and maps every failure to one line on stderr and an exit code:
    /// 0 success, 2 bad usage or input, 1 failure at run time.
    nonisolated static func main() async {
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
        let standardError = FileHandle.standardError
        func say(_ line: String) { standardError.write(Data(("camrtp: " + line + "\n").utf8)) }
        switch error {
        case let error as CLIError:
            say(error.message)
            return error.kind == .usage ? 2 : 1
        case is Y4MError, is SourceSpecError, is IVFError, is EndpointError, is SRTPKeyError, is FakeCameraSpecError,
             is CameraControlError:
            say("\(error)")
            return 2
        case let error as RTPSenderError:
            if case .socket(let socketError) = error, socketError.code == EADDRINUSE {
                say("\(error): another program uses that port; choose another --local-port")
                return 2
            }
            say("\(error)")
            if case .socket = error { return 1 }
            if case .srtp = error { return 1 }
            return 2
        case let error as CameraCaptureError:
            say("\(error)")
            if case .stalled = error { return 1 }
            return 2
        case let error as V4L2Error where [ENOENT, EACCES, ENOTTY].contains(error.code):
            // A node that is missing, not ours to open, or not a camera: the user can fix the input.
            say("\(error)")
            return 2
        case is VPXError:
            say("\(error)")
            return 1
        default:
            let exitCode = Camrtp.exitCode(for: error)
            if exitCode == .success {
                // --help and --version print their text and succeed.
                print(Camrtp.fullMessage(for: error))
                return 0
            }
            if exitCode == .validationFailure {
                let message = Camrtp.message(for: error).split(separator: "\n").first.map(String.init) ?? "bad usage"
                say("\(message) (see 'camrtp --help')")
                return 2
            }
            say("\(error)")
            return 1
        }
    }
}
