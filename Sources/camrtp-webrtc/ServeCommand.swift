import ArgumentParser
import CameraRTP
import CamrtpCLI
import Logging
import MediaCore
import MetricsHTTP
import Synchronization
import ViewerFanout
import WHEP

struct ServeCommand: CamrtpCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: CommandAbstract.serve,
        discussion: """
            Open the printed URL in a browser: the page plays the stream over WebRTC, charts \
            bitrate, RTT, loss and frames, and shows how long after capture its frames reach the \
            screen, with a switch between lowest latency and smooth playout (the browser asked for \
            a playout delay of 0-400 ms unless --playout-delay says otherwise). Any WHEP player can \
            POST its offer to /whep instead. \
            Every viewer has its own ICE, DTLS and SRTP; all share one capture and one encoder, \
            whose rate follows the slowest viewer. Keyframes come when a viewer joins or asks \
            (PLI, the page's button), unless --keyframe-interval says otherwise.

            Capture runs from the start so that a viewer's first frame is one keyframe away; \
            while nobody watches, frames are dropped before the encoder. Ctrl-C closes every \
            viewer and exits 0.

            On an address other machines can reach, viewers need a bearer token (--token-file or \
            CAMRTP_SERVE_TOKEN; the page takes it from #token=... or asks), unless --no-auth. \
            SIGHUP re-reads the token files and the certificate without dropping a viewer. \
            GET /metrics gives Prometheus metrics, behind the same token (or --metrics-token-file).

            The page and WHEP players get the --stun and --turn servers in Link headers \
            (RFC 9725), for viewers behind NAT. A viewer may trickle candidates and restart ICE \
            with PATCH; the page restarts ICE when its connection fails, then reconnects.

              camrtp serve --source testsrc
              camrtp serve --http 0.0.0.0:8443 --token-file tokens --tls-cert fullchain.pem --tls-key privkey.pem
              camrtp serve --http 0.0.0.0:8443 --token-file tokens --tls-cert fullchain.pem --tls-key privkey.pem \\
                --turn turn://viewer:secret@turn.example.org:3478
            """)

    @OptionGroup var input: SourceOptions
    @OptionGroup var serve: ServeOptions
    @OptionGroup var access: ServeAccessOptions
    @OptionGroup var webrtc: WebRTCOptions
    @OptionGroup var adapt: AdaptOptions
    @OptionGroup var encoder: EncoderOptions
    @OptionGroup var layers: LayerOptions
    @OptionGroup var statsOptions: StatsOptions
    @OptionGroup var logging: LoggingOptions

    func execute() async throws {
        guard let (host, port) = serve.listenAddress else { throw CLIError.usage("--http \"\(serve.http)\": expected HOST:PORT") }
        let access = try ServeAccess(self.access, listeningOn: host, http: serve.http)
        let traces = try webrtc.traceFiles()
        let renderMetrics = PrometheusBackend.bootstrap()
        var configuration = try webrtc.senderConfiguration(encoder: encoder, playoutDelay: LatencyOptions.servePlayoutDelay)
        configuration.transport.gatheringWaitNs = Self.gatheringWaitNs
        let source = try input.makeSource(defaultPace: .realtime, size: adapt.outputSize, fpsLimit: adapt.fps)
        var pipelineConfiguration = adapt.pipelineConfiguration(
            for: source, input: input, encoder: encoder, applyRotation: true, defaultKeyframeIntervalSeconds: 0)
        try layers.apply(to: &pipelineConfiguration, for: source)
        let fanout = MultiViewerSink(
            minBitrateKbps: encoder.minBitrate, maxBitrateKbps: encoder.maxBitrate ?? encoder.bitrate,
            temporalLayerShares: layers.cumulativeRateShares,
            encodingAllocation: try layers.encodingAllocation(for: pipelineConfiguration, source: source),
            onViewerEnded: { final, error in printNote(Self.viewerSummary(final, error: error)) })
        let logger = Logger(label: "camrtp.serve")
        var serverConfiguration = WHEPServer.Configuration(
            host: host, port: port, maxViewers: serve.maxViewers, iceServers: try webrtc.iceServers)
        serverConfiguration.authenticator = access.viewers
        serverConfiguration.tls = access.tls
        serverConfiguration.allowedOrigins = self.access.allowedOrigins
        serverConfiguration.metrics = MetricsPage(authenticator: access.metrics, render: renderMetrics)
        let factory = WebRTCViewerFactory(
            fanout: fanout, configuration: configuration, makeTraceSink: { traces?.makeSink() }, logger: logger)
        let server = WHEPServer(configuration: serverConfiguration, factory: factory, logger: logger)
        let pipeline = try StreamPipeline(source: source, configuration: pipelineConfiguration, sink: fanout)

        let turnServers = configuration.transport.turnServers
        let localAddresses = configuration.transport.localAddresses
        let turnCheck = Task {
            let silent = await TURNProbe.silentServers(turnServers, localAddresses: localAddresses)
            if !silent.isEmpty {
                printNote("--turn \(silent.map(\.description).joined(separator: ", ")) gave no relay candidate: the server did not answer "
                    + "or refused the user name and password (check --turn); viewers connect without it")
            }
        }
        defer { turnCheck.cancel() }
        let serverFailure = Mutex<(any Error)?>(nil)
        let serving = Task {
            do {
                try await server.run { port in
                    let base = "\(access.scheme)://\(HostPort.urlHost(host)):\(port)/"
                    printNote("serving \(source.summary) at \(base) (WHEP endpoint \(base)whep)" + (access.viewers == nil ? "" : "; viewers need a token"))
                    StopSignals.reloadOnHangUp { access.reload() }
                }
            } catch is CancellationError {
            } catch {
                serverFailure.withLock { $0 = error }
                pipeline.requestStop()
            }
        }
        let snapshot: StatsSnapshot
        do {
            snapshot = try await PipelineRunner.run(pipeline, stats: statsOptions)
        } catch {
            serving.cancel()
            await serving.value
            throw error
        }
        serving.cancel()
        await serving.value
        if let failure = serverFailure.withLock({ $0 }) {
            throw CLIError.usage("--http \(serve.http): \(failure); choose another address or port")
        }
        printNote("served \(snapshot.framesEncoded) frames, \(DecimalText.fixed(snapshot.bitrateKbps, decimals: 0)) kbit/s to all viewers together; every viewer closed")
    }

    /// How long a viewer's answer waits for its relayed candidates: a TURN allocation takes two
    /// round trips; a server that does not answer is waited for no longer than libnice itself
    /// waits (about 2 s).
    static let gatheringWaitNs: Int64 = 2_000_000_000

    private static func viewerSummary(_ viewer: ViewerStatistics, error: (any Error)?) -> String {
        var line = "viewer \(viewer.id) left: \(viewer.framesForwarded) frames, \(viewer.framesDroppedSlow) dropped as late, "
            + "\(viewer.keyframeRequests) keyframe requests"
        if viewer.framesAboveLayer > 0 { line += ", \(viewer.framesAboveLayer) above its temporal layer" }
        if viewer.paddingProbesFailed > 0 { line += ", \(viewer.paddingProbesFailed) up-switches its path refused" }
        if let delay = viewer.firstFrameDelayNs { line += ", first frame \(DecimalText.fixed(Double(delay) / 1e6, decimals: 1)) ms after joining" }
        if let sender = viewer.sender {
            if sender.nackedPackets > 0 { line += ", \(sender.nackedPackets) NACKed and \(sender.packetsRetransmitted) resent" }
            if sender.rtcpReceived.pli > 0 { line += ", \(sender.rtcpReceived.pli) PLI" }
            if sender.fecPacketsSent > 0 { line += ", \(sender.fecPacketsSent) FEC packets" }
            if let rtt = sender.rttMs { line += ", RTT \(DecimalText.fixed(rtt.p50, decimals: 1)) ms" }
        }
        if let error { line += " (\(error))" }
        return line
    }
}
