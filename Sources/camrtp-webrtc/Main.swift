import CamrtpCLI
import WebRTC
import WHIP

/// camrtp with WebRTC and HTTP: `camrtp publish`, `camrtp serve` and `--metrics` run here
/// (camrtp hands them over), and so can every other command.
@main
struct Main {
    nonisolated static func main() async {
        CommandLineProgram.prepare()
        await CommandLineProgram.run(CamrtpWebRTC.self) { error in
            switch error {
            case let error as WHIPError:
                printNote("\(error)")
                switch error {
                case .invalidURL, .caFile: return 2
                default: return 1
                }
            case let error as WebRTCError:
                printNote("\(error)")
                return 1
            default:
                return nil
            }
        }
    }
}
