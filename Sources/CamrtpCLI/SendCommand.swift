import Adaptation
import ArgumentParser
import CameraRTP
import CongestionControl
import Glibc
import MediaCore
import PlainRTP
import RTPSender

extension CommandConfiguration {
    fileprivate static let send = CommandConfiguration(
        commandName: "send",
        abstract: "Stream a source as VP8 over RTP (or SRTP) to a receiver, and act on its feedback.",
        discussion: """
            The SDP a receiver needs is written with --sdp before the first packet; `camrtp sdp` \
            with the same options prints the same SDP, so a receiver can be started first.

            camrtp listens to the receiver: NACKs bring retransmissions (--retransmit), PLI and \
            FIR bring keyframes, receiver reports give RTT and loss, and transport-cc or REMB \
            feedback drives the bitrate between --min-bitrate and --max-bitrate. Feedback is read \
            on --local-port (RTCP on the next port).

              camrtp send --to 203.0.113.7:5004 --sdp cam.sdp
              camrtp send --source y4m:clip.y4m --to 127.0.0.1:5004 --sdp clip.sdp --srtp
              ffplay -protocol_whitelist file,udp,rtp,srtp -fflags nobuffer -flags low_delay -framedrop -nofind_stream_info cam.sdp
            """)
}

/// `camrtp send`; `Metrics` serves `--metrics` (camrtp hands such a run to camrtp-webrtc).
package struct SendCommand<Metrics: MetricsEndpoint>: CamrtpCommand {
    package static var configuration: CommandConfiguration { .send }

    @OptionGroup var arguments: SendArguments
    @OptionGroup var control: ControlSocketOptions
    @OptionGroup var metrics: MetricsOptions

    package init() {}

    package var logging: LoggingOptions { arguments.logging }

    package func execute() async throws {
        let (input, adapt, stream, encoder) = (arguments.input, arguments.adapt, arguments.stream, arguments.encoder)
        let metricsListener = try await Metrics.start(metrics)
        let plan = try stream.makePlan(destination: arguments.to, frameRate: try input.declaredFrameRate(cap: adapt.fps), encoder: encoder)
        let source = try input.makeSource(defaultPace: .realtime, size: adapt.outputSize, fpsLimit: adapt.fps)
        let trace = try stream.traceBwe.map(BWETraceFile.init(path:))
        defer { trace?.close() }
        var traceSink: (@Sendable (BWETraceRecord) -> Void)?
        if let trace { traceSink = { record in trace.write(record) } }
        let sender = try RTPVideoSender(
            configuration: plan.senderConfiguration(),
            traceSink: traceSink)
        if let sdp = arguments.sdp { try SDPOutput.write(plan, to: sdp) }
        var pipelineConfiguration = adapt.pipelineConfiguration(for: source, input: input, encoder: encoder, applyRotation: !stream.cvo)
        try arguments.layers.apply(to: &pipelineConfiguration, for: source)
        let pipeline = try StreamPipeline(source: source, configuration: pipelineConfiguration, sink: sender)
        printNote("sending \(source.summary) to \(plan.destination)\(plan.srtpKey == nil ? "" : " with SRTP"), SSRC \(sender.ssrc), feedback on port \(sender.localPorts?.rtcp ?? 0)")
        let snapshot: StatsSnapshot
        do {
            snapshot = try await control.serving(pipeline) { try await PipelineRunner.run(pipeline, stats: arguments.statsOptions) }
        } catch {
            await metricsListener?.stop()
            throw error
        }
        await metricsListener?.stop()
        let transport = sender.transportStatistics
        var summary = "sent \(snapshot.framesEncoded) frames in \(snapshot.packetsSent) packets (\(snapshot.totalDropped) dropped, "
            + "\(snapshot.keyframes) keyframes), \(DecimalText.fixed(snapshot.bitrateKbps, decimals: 0)) kbit/s, "
            + "latency p50 \(DecimalText.fixed(snapshot.latencyMs.p50, decimals: 1)) ms p99 \(DecimalText.fixed(snapshot.latencyMs.p99, decimals: 1)) ms"
        if let sender = snapshot.sender, sender.rtcpReceived != .init() {
            summary += "; feedback: \(sender.nackedPackets) NACKed, \(sender.packetsRetransmitted) retransmitted, "
                + "\(sender.keyframesOnRequest) keyframes on request"
            if sender.fecPacketsSent > 0 { summary += ", \(sender.fecPacketsSent) FEC packets" }
            if let rtt = sender.rttMs { summary += ", RTT \(DecimalText.fixed(rtt.p50, decimals: 1)) ms" }
        }
        if transport.connectionRefused > 0 { summary += "; \(transport.connectionRefused) refused (is the receiver running?)" }
        printNote(summary)
    }
}
