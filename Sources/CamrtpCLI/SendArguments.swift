import ArgumentParser

/// Everything `send` takes; `sdp` takes the same, so a command line can switch between them.
struct SendArguments: ParsableArguments {
    @OptionGroup var input: SourceOptions
    @Option(help: ArgumentHelp("Receiver address: HOST:PORT, such as 127.0.0.1:5004 or [::1]:5004.", valueName: "host:port"))
    var to: String
    @Option(help: ArgumentHelp("Write the receiver's SDP to this file (send: before the first packet).", valueName: "file"))
    var sdp: String?
    @OptionGroup var adapt: AdaptOptions
    @OptionGroup var stream: StreamOptions
    @OptionGroup var encoder: EncoderOptions
    @OptionGroup var layers: LayerOptions
    @OptionGroup var statsOptions: StatsOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        try layers.refuseSimulcast(command: "send")
    }
}
