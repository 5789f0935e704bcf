import ArgumentParser
import CameraRTP
import CamrtpCLI
import MediaCore
import WebRTC
import WHIP

struct PublishCommand: CamrtpCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: CommandAbstract.publish,
        discussion: """
            camrtp gathers ICE candidates, POSTs its SDP offer to the WHIP URL (RFC 9725), takes \
            the answer from the 201 and connects: ICE, then DTLS-SRTP. Media starts when DTLS \
            completes, with a keyframe; later keyframes come when the peer asks (PLI), unless \
            --keyframe-interval says otherwise. Ctrl-C or --duration ends the session with a \
            DELETE of the 201's Location, and camrtp exits 0.

              camrtp publish --source testsrc --whip http://127.0.0.1:8080/whip/cam1
              camrtp publish --whip https://ingest.example/whip --bearer-file token --stun stun.example.org:3478
            """)

    @OptionGroup var input: SourceOptions
    @OptionGroup var publish: PublishOptions
    @OptionGroup var webrtc: WebRTCOptions
    @OptionGroup var adapt: AdaptOptions
    @OptionGroup var encoder: EncoderOptions
    @OptionGroup var statsOptions: StatsOptions
    @OptionGroup var metrics: MetricsOptions
    @OptionGroup var logging: LoggingOptions

    func execute() async throws {
        let whip = try WHIPClient(
            endpoint: publish.whip, bearerToken: try publish.bearerToken(), timeoutNs: Int64(publish.httpTimeout * 1e9),
            caFile: publish.caFile)
        let metricsListener = try await metrics.start()
        let source = try input.makeSource(defaultPace: .realtime, size: adapt.outputSize, fpsLimit: adapt.fps)
        let configuration = try webrtc.senderConfiguration(encoder: encoder)
        let pipelineConfiguration = adapt.pipelineConfiguration(
            for: source, input: input, encoder: encoder, applyRotation: true, defaultKeyframeIntervalSeconds: 0)
        let sender = try await WebRTCVideoSender.offering(configuration: configuration)
        defer { sender.close() }

        let session = try await whip.publish(offer: sender.localDescription)
        // From here on the endpoint holds a session: every way out ends it. While the stream runs a
        // signal stops it (and the DELETE follows); before, the clean-up sends the DELETE.
        let cleanup = StopSignals.addCleanup { WHIPSessionEnder.endBlocking(session, with: whip) }
        let snapshot: StatsSnapshot
        do {
            try sender.acceptAnswer(session.answer)
            printNote("published \(source.summary) to \(publish.whip) (session \(session.resource)); connecting")
            let pipeline = try StreamPipeline(source: source, configuration: pipelineConfiguration, sink: sender)
            let connected = Task { await Self.reportConnection(of: sender) }
            defer { connected.cancel() }
            snapshot = try await PipelineRunner.run(pipeline, stats: statsOptions)
        } catch {
            try? await whip.stop(session)
            StopSignals.removeCleanup(cleanup)
            await metricsListener?.stop()
            throw error
        }
        defer { StopSignals.removeCleanup(cleanup) }
        await metricsListener?.stop()
        try await whip.stop(session)
        printNote(Self.summary(snapshot, sender.statistics))
    }

    /// One line once connected, with the time each step took.
    private static func reportConnection(of sender: WebRTCVideoSender) async {
        guard (try? await sender.waitUntilConnected()) != nil else { return }
        let statistics = sender.statistics.connection
        var line = "connected"
        if let pair = statistics.selectedPair { line += " via \(pair)" }
        if let ice = statistics.timeline.iceMs { line += ": ICE \(DecimalText.fixed(ice, decimals: 1)) ms" }
        if let dtls = statistics.timeline.dtlsMs { line += ", DTLS \(DecimalText.fixed(dtls, decimals: 1)) ms" }
        if let suite = statistics.dtls.suite { line += " (\(suite))" }
        printNote(line)
    }

    private static func summary(_ snapshot: StatsSnapshot, _ statistics: WebRTCSenderStatistics) -> String {
        var summary = "sent \(statistics.framesForwarded) frames in \(snapshot.packetsSent) packets "
            + "(\(statistics.framesDroppedBeforeReady) before the connection was ready, \(snapshot.totalDropped) dropped by the pipeline), "
            + "\(DecimalText.fixed(snapshot.bitrateKbps, decimals: 0)) kbit/s"
        if let firstKeyframe = statistics.firstKeyframeMs {
            summary += "; first keyframe \(DecimalText.fixed(firstKeyframe, decimals: 1)) ms after DTLS"
        }
        if let sender = statistics.sender {
            summary += "; feedback: \(sender.rtcpReceived.pli) PLI, \(sender.nackedPackets) NACKed, "
                + "\(sender.packetsRetransmitted) retransmitted, \(sender.twccFeedbackReceived) transport-cc"
            if let rtt = sender.rttMs { summary += ", RTT \(DecimalText.fixed(rtt.p50, decimals: 1)) ms" }
        }
        return summary + "; session ended (DELETE)"
    }
}

/// Ends a WHIP session from a signal's clean-up, which cannot await: the DELETE runs in a task
/// and the signal thread waits for it (at most the HTTP timeout) before camrtp exits.
enum WHIPSessionEnder {
    static func endBlocking(_ session: WHIPSession, with client: WHIPClient) {
        let done = ThreadCondition()
        nonisolated(unsafe) var finished = false
        Task {
            try? await client.stop(session)
            done.withLock {
                finished = true
                done.signal()
            }
        }
        let deadline = MonotonicClock.nowNs() + client.timeoutNs + 1_000_000_000
        done.withLock {
            while !finished { if !done.wait(untilNs: deadline) { break } }
        }
    }
}
