import ArgumentParser
import Capture
import MediaCore
import CameraRTP
import Glibc

package struct RecordCommand: CamrtpCommand {
    package static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Encode a source to VP8 in an IVF file that any player opens.",
        discussion: """
            Files and the test pattern are encoded as fast as the encoder goes, frame for frame; \
            a camera in real time until --frames, --duration or Ctrl-C. A recording is not a \
            stream: --bitrate is an average (VBR), a hard picture or a keyframe takes the bits it \
            needs, and no frame is dropped to hold the rate. A regular file appears whole when \
            the recording ends (the old one stays until then); a device or a FIFO is written \
            through.

              camrtp record --source y4m:clip.y4m --out clip.ivf
              camrtp record --source testsrc:640x480@30 --frames 300 --bitrate 800 --out pattern.ivf
              ffmpeg -i clip.mp4 -f yuv4mpegpipe - | camrtp record --source y4m:- --out clip.ivf
              ffplay pattern.ivf
            """)

    @OptionGroup var input: SourceOptions
    @OptionGroup var adapt: AdaptOptions
    @Option(help: ArgumentHelp("The IVF file to write.", valueName: "file"))
    var out: String
    @OptionGroup var encoder: EncoderOptions
    @OptionGroup var statsOptions: StatsOptions
    @OptionGroup package var logging: LoggingOptions
    @OptionGroup var singleStream: SingleStreamOptions

    package init() {}

    package func validate() throws {
        try singleStream.validate(command: "record")
    }

    package func execute() async throws {
        // The source first: a bad one must leave an existing --out as it was.
        let source = try input.makeSource(defaultPace: .fast, size: adapt.outputSize, fpsLimit: adapt.fps)
        try input.checkIsNotInput(out, option: "--out")
        do {
            try OutputFile.check(out)
        } catch {
            throw CLIError.usage("--out \(error)")
        }
        // IVF has no place for rotation metadata, so a rotation is applied to the pixels.
        var configuration = adapt.pipelineConfiguration(for: source, input: input, encoder: encoder, applyRotation: true)
        configuration.pace = input.pace ?? (source.canRunFast ? .fast : .realtime)
        // A file has no network to fit: libvpx's own VBR settings, not a live stream's.
        configuration.encoder = encoder.recordingSettings
        let frameRate = configuration.outputFormat(for: source).frameRate
        let pipeline = try StreamPipeline(source: source, configuration: configuration, sink: IVFRecorder(path: out, frameRate: frameRate))
        printNote("recording \(source.summary) to \(out)")
        let snapshot = try await PipelineRunner.run(pipeline, stats: statsOptions)
        printNote(
            "wrote \(snapshot.framesEncoded) frames (\(snapshot.totalDropped) dropped, \(snapshot.keyframes) keyframes), "
                + "\(snapshot.bytesSent) bytes, to \(out); encode p50 \(DecimalText.fixed(snapshot.encodeMs.p50, decimals: 1)) ms")
    }
}

extension CapturePace: ExpressibleByArgument {}
