import ArgumentParser
import CameraRTP
import Glibc
import MediaCore
import PlainRTP
import RTPSender
import Transport

package struct LoopbackCommand: CamrtpCommand {
    package static let configuration = CommandConfiguration(
        commandName: "loopback",
        abstract: "Stream to a real receiver on this machine and show what it decoded.",
        discussion: """
            Writes the SDP, starts ffplay (or, with no display or with --headless, ffmpeg), \
            streams to it on 127.0.0.1, and prints what the receiver decoded. Stops after \
            --duration or --frames, when ffplay is closed, or on Ctrl-C.

              camrtp loopback --source testsrc --duration 10
              camrtp loopback --source y4m:clip.y4m --headless --srtp
            """)

    @OptionGroup var input: SourceOptions
    @Option(parsing: .unconditional, help: ArgumentHelp("UDP port on 127.0.0.1 for RTP; RTCP uses the next one.", valueName: "port"))
    var port: Int = 5004
    @Flag(help: "Use headless ffmpeg as the receiver even when a display is there.")
    var headless = false
    @Option(help: ArgumentHelp("Keep the SDP in this file (otherwise a temporary one).", valueName: "file"))
    var sdp: String?
    @OptionGroup var adapt: AdaptOptions
    @OptionGroup var stream: StreamOptions
    @OptionGroup var encoder: EncoderOptions
    @OptionGroup var statsOptions: StatsOptions
    @OptionGroup package var logging: LoggingOptions
    @OptionGroup var singleStream: SingleStreamOptions

    package init() {}

    /// The suites ffmpeg's SRTP decrypts (libavformat's srtp.c): AES-128 counter mode only.
    static let receiverSuites: [SRTPSuite] = [.aesCM128HMACSHA1_80, .aesCM128HMACSHA1_32]

    package func validate() throws {
        try singleStream.validate(command: "loopback")
        guard (1024...65534).contains(port) else { throw ValidationError("--port must be 1024...65534, not \(port)") }
        if stream.usesSRTP, let suite = SRTPSuite(sdpName: stream.srtpSuite), !Self.receiverSuites.contains(suite) {
            throw ValidationError(
                "--srtp-suite \(suite.sdpName): ffmpeg, the loopback receiver, decrypts only \(Self.receiverSuites.map(\.sdpName).joined(separator: " and ")); use one of those here (camrtp send takes \(suite.sdpName) for a receiver that has it)")
        }
    }

    package func execute() async throws {
        let plan = try stream.makePlan(destination: "127.0.0.1:\(port)", frameRate: try input.declaredFrameRate(cap: adapt.fps), encoder: encoder)
        let source = try input.makeSource(defaultPace: .realtime, size: adapt.outputSize, fpsLimit: adapt.fps)
        let sender = try RTPVideoSender(
            configuration: plan.senderConfiguration())
        for (taken, role) in [(port, "RTP"), (port + 1, "RTCP")] where LocalUDPPort.isBound(UInt16(taken)) {
            throw CLIError.usage("--port \(port): UDP port \(taken) (\(role)) is in use by another program; choose another --port")
        }
        let temporarySDP = sdp == nil ? try TemporarySDPFile(plan) : nil
        if let sdp { try SDPOutput.write(plan, to: sdp) }
        let sdpPath = temporarySDP?.path ?? sdp ?? ""

        let receiver = try await LoopbackReceiver.start(sdpPath: sdpPath, srtp: plan.srtpKey != nil, headless: headless)
        // A signal before or after the stream ends camrtp at once: take the receiver and the SDP along.
        let cleanup = StopSignals.addCleanup {
            receiver.terminate()
            temporarySDP?.remove()
        }
        defer { StopSignals.removeCleanup(cleanup) }
        let listening = await MediaThread.run(name: "camrtp.receiver") { receiver.waitUntilListening(port: UInt16(port)) }
        // The receiver has read the SDP once it listens: the key need not wait on disk.
        temporarySDP?.remove()
        guard listening else {
            await MediaThread.run(name: "camrtp.receiver") { receiver.finish(graceSeconds: 0) }
            throw CLIError.runtime("\(receiver.kind.rawValue) did not start listening on 127.0.0.1:\(port); is the port in use?")
        }
        let pipeline = try StreamPipeline(
            source: source, configuration: adapt.pipelineConfiguration(
                for: source, input: input, encoder: encoder, applyRotation: !stream.cvo),
            sink: sender)
        // Closing the ffplay window ends the run.
        let watcher = MediaThread(name: "camrtp.watch") {
            while receiver.isRunning && pipeline.failure == nil { usleep(100_000) }
            pipeline.requestStop()
        }
        printNote("streaming \(source.summary) to \(receiver.kind.rawValue) on 127.0.0.1:\(port)\(sdp.map { " (SDP: \($0))" } ?? "")")
        let snapshot: StatsSnapshot
        do {
            snapshot = try await PipelineRunner.run(pipeline, stats: statsOptions)
        } catch {
            await MediaThread.run(name: "camrtp.receiver") {
                receiver.finish(graceSeconds: 0)
                watcher.join()
            }
            throw error
        }
        await MediaThread.run(name: "camrtp.receiver") {
            receiver.finish(graceSeconds: 6)
            watcher.join()
        }
        try StandardStreams.print("sent: \(snapshot.framesEncoded) frames, \(snapshot.packetsSent) packets, \(Int(snapshot.bitrateKbps.rounded())) kbit/s\n")
        guard receiver.kind == .ffmpeg else { return }
        let report = receiver.report
        var line = "decoded by ffmpeg: \(report.frames) frames of \(report.width)x\(report.height)"
        // Frame numbers are readable only from an upright, unmirrored test pattern.
        let carriesFrameNumbers = if case .testPattern = try input.spec { input.rotation == 0 && !adapt.mirror } else { false }
        if carriesFrameNumbers, let first = report.indices.min(), let last = report.indices.max() {
            let missing = last - first + 1 - report.indices.count
            line += "; test-pattern frames \(first)...\(last), \(missing == 0 ? "none" : String(missing)) missing"
        }
        try StandardStreams.print(line + "\n")
        guard report.frames > 0 else { throw CLIError.runtime("the receiver decoded nothing") }
    }
}
