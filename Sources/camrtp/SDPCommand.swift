import ArgumentParser
import CameraRTP

struct SDPCommand: CamrtpCommand {
    static let configuration = CommandConfiguration(
        commandName: "sdp",
        abstract: "Print the SDP that `camrtp send` with the same options would use, without sending.",
        discussion: """
            Start the receiver first, then send:

              camrtp sdp --to 127.0.0.1:5004 > cam.sdp
              ffplay -protocol_whitelist file,udp,rtp -fflags nobuffer -flags low_delay -framedrop -nofind_stream_info cam.sdp &
              camrtp send --to 127.0.0.1:5004

            With --srtp, give the key (--srtp-key) so that send uses the same one.
            """)

    @OptionGroup var input: SourceOptions
    @Option(help: ArgumentHelp("Receiver address: HOST:PORT, such as 127.0.0.1:5004 or [::1]:5004.", valueName: "host:port"))
    var to: String
    @OptionGroup var adapt: AdaptOptions
    @OptionGroup var stream: StreamOptions
    @OptionGroup var logging: LoggingOptions

    func execute() async throws {
        let plan = try stream.makePlan(destination: to, frameRate: try input.declaredFrameRate(cap: adapt.fps), requireKey: true)
        print(plan.sessionDescription.serialized(), terminator: "")
    }
}
