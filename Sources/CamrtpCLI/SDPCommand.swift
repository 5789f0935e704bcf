import ArgumentParser
import PlainRTP

package struct SDPCommand: CamrtpCommand {
    package static let configuration = CommandConfiguration(
        commandName: "sdp",
        abstract: "Print the SDP that `camrtp send` with the same options would use, without sending.",
        discussion: """
            Start the receiver first, then send:

              camrtp sdp --to 127.0.0.1:5004 > cam.sdp
              ffplay -protocol_whitelist file,udp,rtp -fflags nobuffer -flags low_delay -framedrop -nofind_stream_info cam.sdp &
              camrtp send --to 127.0.0.1:5004

            It takes every send option; those that do not shape the SDP (encoder, stats) are \
            accepted and change nothing. With --srtp, give the key (--srtp-key) so that send uses \
            the same one. With --sdp FILE it writes the file instead of printing.
            """)

    @OptionGroup var arguments: SendArguments

    package init() {}

    package var logging: LoggingOptions { arguments.logging }

    package func execute() async throws {
        let (input, adapt) = (arguments.input, arguments.adapt)
        let plan = try arguments.stream.makePlan(
            destination: arguments.to, frameRate: try input.declaredFrameRate(cap: adapt.fps), encoder: arguments.encoder,
            requireKey: true)
        if let sdp = arguments.sdp {
            try SDPOutput.write(plan, to: sdp)
        } else {
            try StandardStreams.print(plan.sessionDescription.serialized())
        }
    }
}
