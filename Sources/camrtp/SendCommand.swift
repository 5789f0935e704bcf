import Adaptation
import ArgumentParser
import CameraRTP
import Foundation

struct SendCommand: CamrtpCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Stream a source as VP8 over RTP (or SRTP) to a receiver.",
        discussion: """
            The SDP a receiver needs is written with --sdp before the first packet; `camrtp sdp` \
            with the same options prints the same SDP, so a receiver can be started first.

              camrtp send --to 203.0.113.7:5004 --sdp cam.sdp
              camrtp send --source y4m:clip.y4m --to 127.0.0.1:5004 --sdp clip.sdp --srtp
              ffplay -protocol_whitelist file,udp,rtp,srtp -fflags nobuffer -flags low_delay -framedrop cam.sdp
            """)

    @OptionGroup var arguments: SendArguments
    @OptionGroup var control: ControlSocketOptions

    var logging: LoggingOptions { arguments.logging }

    func execute() async throws {
        let (input, adapt, stream, encoder) = (arguments.input, arguments.adapt, arguments.stream, arguments.encoder)
        let plan = try stream.makePlan(destination: arguments.to, frameRate: try input.declaredFrameRate(cap: adapt.fps))
        let source = try input.makeSource(defaultPace: .realtime, size: adapt.outputSize, fpsLimit: adapt.fps)
        let sender = try RTPVideoSender(plan: plan)
        if let sdp = arguments.sdp { try SDPFile.write(plan, to: sdp) }
        let pipeline = try StreamPipeline(
            source: source, configuration: adapt.pipelineConfiguration(
                for: source, input: input, encoder: encoder, applyRotation: !stream.cvo),
            sink: sender)
        printNote("sending \(source.summary) to \(plan.destination)\(plan.srtpKey == nil ? "" : " with SRTP"), SSRC \(sender.ssrc)")
        let snapshot = try await control.serving(pipeline) { try await PipelineRunner.run(pipeline, stats: arguments.statsOptions) }
        let transport = sender.transportStatistics
        printNote(String(
            format: "sent %d frames in %d packets (%d dropped, %d keyframes), %.0f kbit/s, latency p50 %.1f ms p99 %.1f ms%@",
            snapshot.framesEncoded, snapshot.packetsSent, snapshot.totalDropped, snapshot.keyframes, snapshot.bitrateKbps,
            snapshot.latencyMs.p50, snapshot.latencyMs.p99,
            transport.connectionRefused > 0 ? "; \(transport.connectionRefused) refused (is the receiver running?)" : ""))
    }
}

/// Writes a plan's SDP where a receiver will read it.
enum SDPFile {
    static func write(_ plan: SessionPlan, to path: String) throws {
        do {
            try Data(plan.sessionDescription.serialized().utf8).write(to: URL(fileURLWithPath: path))
        } catch {
            throw CLIError.usage("--sdp \(path): cannot write: \(error.localizedDescription)")
        }
    }
}
