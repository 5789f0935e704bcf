import ArgumentParser
import CamrtpCLI

/// camrtp: every command runs here but `publish`, `serve` and `--metrics`, which need the WebRTC
/// and HTTP stacks and run in camrtp-webrtc, so that a plain stream never loads them.
struct Camrtp: ParsableCommand {
    static let configuration = CommandConfiguration.camrtp(subcommands: [
        SendCommand<WebRTCProgram>.self, HandedOver<Serve>.self, HandedOver<Publish>.self, SDPCommand.self,
        LoopbackCommand.self, RecordCommand.self, SnapshotCommand.self, DevicesCommand.self, CtlCommand.self,
    ])
}
