import Adaptation
import ArgumentParser
import Capture
import CameraRTP
import Glibc
import ImageEncoding
import MediaCore

package struct SnapshotCommand: CamrtpCommand {
    package static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Take one still picture from a source and write it as JPEG or PNG.",
        discussion: """
            The picture is the frame a stream would carry: --size crops and scales it, --mirror \
            flips it, and it is upright whatever the rotation. A camera first runs --warmup-frames \
            frames so that its exposure and white balance settle. The --out extension chooses the \
            format: .jpg or .jpeg (with --quality), or .png.

              camrtp snapshot --source testsrc:640x480 --out pattern.jpg
              camrtp snapshot --source camera --size 1280x720 --mirror --out me.png
            """)

    /// Frames a camera runs before the one taken: about a third of a second at 30 fps, which
    /// covers the dark or tinted first frames of UVC webcams.
    static let cameraWarmupFrames = 10

    @OptionGroup var input: SourceOptions
    @OptionGroup var adapt: AdaptOptions
    @Option(help: ArgumentHelp("The image to write: .jpg, .jpeg or .png.", valueName: "file"))
    var out: String
    @Option(parsing: .unconditional, help: ArgumentHelp("JPEG quality, 1 to 100.", valueName: "n"))
    var quality: Int = ImageEncoder.defaultQuality
    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Frames to let pass before the one taken (default: \(cameraWarmupFrames) for a camera, 0 for file and test sources).",
        valueName: "n"))
    var warmupFrames: Int?
    @OptionGroup package var logging: LoggingOptions

    package init() {}

    package func validate() throws {
        guard ImageEncoder.qualityRange.contains(quality) else {
            throw ValidationError("--quality must be 1...100, not \(quality)")
        }
        if let warmupFrames, warmupFrames < 0 {
            throw ValidationError("--warmup-frames must be 0 or more, not \(warmupFrames)")
        }
        if input.frames != nil || input.duration != nil || input.pace != nil {
            throw ValidationError("--frames, --duration and --pace are for streams; snapshot takes one frame after --warmup-frames")
        }
    }

    package func execute() async throws {
        let format: ImageFormat
        let source: CaptureSource
        do {
            format = try ImageFile.checkOutput(out)
            source = try input.makeSource(defaultPace: .realtime, size: adapt.outputSize, fpsLimit: adapt.fps)
        } catch {
            throw userFacing(error)
        }
        try await takeSnapshot(from: source, format: format)
    }

    /// Takes the still from `source` and writes it to `--out` as `format`.
    func takeSnapshot(from source: CaptureSource, format: ImageFormat) async throws {
        let warmupFrames = warmupFrames ?? (source.hasCameraClock ? Self.cameraWarmupFrames : 0)
        let image: EncodedImage
        do {
            image = try await source.snapshot(
                format: format, quality: quality, outputSize: adapt.outputSize, mirror: adapt.mirror, warmupFrames: warmupFrames
            ).image
            try ImageFile.write(image.data, to: out)
        } catch {
            throw userFacing(error)
        }
        printNote("wrote a \(image.width)x\(image.height) \(format.rawValue.uppercased()) of \(source.summary) to \(out) (\(image.data.count) bytes)")
    }

    /// Errors the user can fix become bad usage (exit code 2): a camera that another program
    /// holds, a path that cannot take the file, a warm-up longer than the file. A disk that fails
    /// or fills up stays a run-time failure.
    private func userFacing(_ error: any Error) -> any Error {
        switch error {
        case let error as V4L2Error where error.code == EBUSY:
            CLIError.usage("\(error)")
        case let error as OutputFileError:
            error.isDiskFailure ? CLIError.runtime("--out \(error)") : CLIError.usage("--out \(error)")
        case SnapshotError.sourceFinished:
            CLIError.usage("--source \(input.source) ended before the frame to take; let fewer --warmup-frames pass, or --loop")
        default:
            error
        }
    }
}
