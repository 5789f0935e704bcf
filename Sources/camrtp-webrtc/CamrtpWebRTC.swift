import ArgumentParser
import CamrtpCLI

/// The same commands as camrtp, with publish, serve and `--metrics` implemented here.
struct CamrtpWebRTC: ParsableCommand {
    static let configuration = CommandConfiguration.camrtp(subcommands: [
        SendCommand<PrometheusEndpoint>.self, ServeCommand.self, PublishCommand.self, SDPCommand.self,
        LoopbackCommand.self, RecordCommand.self, SnapshotCommand.self, DevicesCommand.self, CtlCommand.self,
    ])
}
