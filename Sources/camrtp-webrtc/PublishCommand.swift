import ArgumentParser
import CameraRTP
import CamrtpCLI
import MediaCore
import Publishing
import SDP
import Synchronization
import WebRTC
import WHIP

struct PublishCommand: CamrtpCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: CommandAbstract.publish,
        discussion: """
            camrtp gathers ICE candidates (with the STUN and TURN servers of --stun, --turn and the \
            endpoint's Link headers), POSTs its SDP offer to the WHIP URL (RFC 9725), takes the \
            answer from the 201 and connects: ICE, then DTLS-SRTP. Media starts when DTLS \
            completes, with a keyframe; later keyframes come when the peer asks (PLI), unless \
            --keyframe-interval says otherwise. Ctrl-C or --duration ends the session with a \
            DELETE of the 201's Location, and camrtp exits 0.

            camrtp does not give up on a network or server failure: it restarts ICE first, and \
            if that does not bring the connection back within seconds, it POSTs a new session, \
            waiting 1 s, 2 s, 4 s ... up to 30 s between attempts (--reconnect-limit stops it). \
            401, 403 and 404 stop it at once.

              camrtp publish --source testsrc --whip http://127.0.0.1:8080/whip/cam1
              camrtp publish --whip https://ingest.example/whip --bearer-file token --turn turn://cam:secret@turn.example.org:3478
            """)

    @OptionGroup var input: SourceOptions
    @OptionGroup var publish: PublishOptions
    @OptionGroup var webrtc: WebRTCOptions
    @OptionGroup var adapt: AdaptOptions
    @OptionGroup var encoder: EncoderOptions
    @OptionGroup var layers: LayerOptions
    @OptionGroup var statsOptions: StatsOptions
    @OptionGroup var metrics: MetricsOptions
    @OptionGroup var logging: LoggingOptions

    func execute() async throws {
        let whip = try WHIPClient(
            endpoint: publish.whip, bearerToken: try publish.bearerToken(), timeoutNs: Int64(publish.httpTimeout * 1e9),
            caFile: publish.caFile)
        let traces = try webrtc.traceFiles()
        let metricsListener = try await metrics.start()
        let source = try input.makeSource(defaultPace: .realtime, size: adapt.outputSize, fpsLimit: adapt.fps)
        var configuration = try webrtc.senderConfiguration(encoder: encoder)
        configuration.transport.gatheringWaitNs = Self.gatheringWaitNs
        var pipelineConfiguration = adapt.pipelineConfiguration(
            for: source, input: input, encoder: encoder, applyRotation: true, defaultKeyframeIntervalSeconds: 0)
        try layers.apply(to: &pipelineConfiguration, for: source)
        configuration.simulcast = Self.simulcastOffer(sizes: try layers.simulcastSizes(for: pipelineConfiguration, source: source))
        let notes = PublishNotes(source: source.summary, endpoint: publish.whip, configuredTURN: configuration.transport.turnServers)
        let publisher = WHIPPublisher(
            client: whip,
            configuration: WHIPPublisher.Configuration(
                sender: configuration, reconnectLimit: publish.reconnectLimit, makeTraceSink: { traces?.makeSink() })
        ) { event in notes.line(for: event).map(printNote) }
        let pipeline = try StreamPipeline(source: source, configuration: pipelineConfiguration, sink: publisher.sink)

        // While the stream runs a signal stops it and the DELETE follows; outside it (a signal
        // the moment the stream starts or ends) the clean-up sends it.
        let cleanup = StopSignals.addCleanup { if let session = publisher.session { WHIPSessionEnder.endBlocking(session, with: whip) } }
        defer { StopSignals.removeCleanup(cleanup) }
        let failure = Mutex<(any Error)?>(nil)
        let publishing = Task {
            do {
                try await publisher.run()
            } catch {
                failure.withLock { $0 = error }
                pipeline.requestStop()
            }
        }
        let snapshot: StatsSnapshot
        do {
            snapshot = try await PipelineRunner.run(pipeline, stats: statsOptions) {
                ["reconnections": publisher.reconnections, "iceRestarts": publisher.iceRestarts]
            }
        } catch {
            publishing.cancel()
            await publishing.value
            try? await publisher.end()
            await metricsListener?.stop()
            throw error
        }
        publishing.cancel()
        await publishing.value
        await metricsListener?.stop()
        if let failure = failure.withLock({ $0 }) {
            try? await publisher.end()
            throw CLIError.runtime("\(failure)")
        }
        try await publisher.end()
        printNote(Self.summary(snapshot, publisher))
    }

    /// The simulcast encodings the offer lists, highest first, as janus.js offers them and as
    /// Janus's VideoRoom reads an offer by default (its first `a=rid` is substream 2, the
    /// highest), and as RFC 8853 §5.1 orders streams, most preferred first: `f`, `h` and `q` for
    /// full, half and quarter size, each `a=rid` line with its size.
    static func simulcastOffer(sizes: [(width: Int, height: Int)]) -> [SimulcastEncoding] {
        zip(["q", "h", "f"].suffix(sizes.count), sizes).enumerated().reversed().map { index, named in
            SimulcastEncoding(rid: named.0, encodingIndex: index, maxWidth: named.1.width, maxHeight: named.1.height)
        }
    }

    /// How long gathering may hold the offer back: host candidates come at once and a TURN
    /// allocation in two round trips; what comes later (a server that does not answer, which
    /// libnice gives up on after about 2 s) is trickled.
    static let gatheringWaitNs: Int64 = 1_000_000_000

    private static func summary(_ snapshot: StatsSnapshot, _ publisher: WHIPPublisher) -> String {
        var summary = "sent \(publisher.framesForwarded) frames in \(snapshot.packetsSent) packets "
            + "(\(publisher.framesDroppedBeforeReady) before the connection was ready, \(snapshot.totalDropped) dropped by the pipeline), "
            + "\(DecimalText.fixed(snapshot.bitrateKbps, decimals: 0)) kbit/s"
        if let statistics = publisher.sender?.statistics {
            if let firstKeyframe = statistics.firstKeyframeMs {
                summary += "; first keyframe \(DecimalText.fixed(firstKeyframe, decimals: 1)) ms after DTLS"
            }
            if let sender = statistics.sender {
                summary += "; feedback: \(sender.rtcpReceived.pli) PLI, \(sender.nackedPackets) NACKed, "
                    + "\(sender.packetsRetransmitted) retransmitted, \(sender.twccFeedbackReceived) transport-cc"
                if sender.fecPacketsSent > 0 { summary += ", \(sender.fecPacketsSent) FEC packets" }
                if let rtt = sender.rttMs { summary += ", RTT \(DecimalText.fixed(rtt.p50, decimals: 1)) ms" }
            }
        }
        if publisher.reconnections > 0 || publisher.iceRestarts > 0 {
            summary += "; \(publisher.reconnections) reconnections, \(publisher.iceRestarts) ICE restarts"
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
