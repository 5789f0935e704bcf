import ArgumentParser
import Capture
import FakeV4L2
import CameraRTP
import Glibc
import MediaCore
import Synchronization

/// Where frames come from and when to stop: shared by every command that captures.
package struct SourceOptions: ParsableArguments {
    /// The longest `--duration`: a year. Longer runs leave it out and stop with Ctrl-C.
    static let maxDurationSeconds = 365.0 * 24 * 3600

    @Option(help: ArgumentHelp(
        "auto, camera[:DEVICE], testsrc[:WxH[@FPS]], y4m:PATH (y4m:- reads standard input) or fake-camera[:[POSITION=]FOURCC[:WxH[@FPS]][:corrupt[=N]],...].",
        discussion: "auto takes the first camera, else the test pattern, and says which. fake-camera:back=YUYV:640x480,front=YUYV:320x240 makes two fake cameras to switch between; the first one streams. fake-camera:MJPG:640x480:corrupt delivers MJPEG that does not decode.",
        valueName: "spec"))
    var source: String = "auto"

    // Unconditional options read "-5" as a value, so that the message is about the value.
    @Option(parsing: .unconditional, help: ArgumentHelp("Stop after N captured frames.", valueName: "n"))
    var frames: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Stop after this many seconds.", valueName: "seconds"))
    var duration: Double?

    @Flag(help: "Loop a file source instead of ending at its end.")
    var loop = false

    @Option(help: ArgumentHelp(
        "realtime or fast. fast runs file and test sources as fast as the encoder goes.", valueName: "pace"))
    var pace: CapturePace?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Rotation of file and test sources to signal or apply: 0, 90, 180 or 270 (clockwise). Cameras take theirs from --orientation.",
        valueName: "degrees"))
    var rotation: Int = 0

    @OptionGroup var camera: CameraOptions

    package init() {}

    package func validate() throws {
        if let frames, frames <= 0 { throw ValidationError("--frames must be a positive count, not \(frames)") }
        if let duration, !(duration > 0 && duration <= Self.maxDurationSeconds) {
            throw ValidationError(
                "--duration must be more than 0 and at most \(Int(Self.maxDurationSeconds)) seconds (a year), not \(duration); leave it out to run until Ctrl-C")
        }
        guard VideoRotation(degrees: rotation) != nil, (0...270).contains(rotation) else {
            throw ValidationError("--rotation must be 0, 90, 180 or 270, not \(rotation)")
        }
    }

    var videoRotation: VideoRotation { VideoRotation(degrees: rotation) ?? .deg0 }

    var spec: SourceSpec {
        get throws { try SourceSpec(parsing: source) }
    }

    /// Makes the capture source. File and test sources are paced by `defaultPace` unless `--pace`
    /// says; a camera runs in real time and picks the format closest to `size` at up to `fpsLimit`.
    package func makeSource(defaultPace: CapturePace, size: (width: Int, height: Int)?, fpsLimit: Double?) throws -> CaptureSource {
        let spec = try spec
        let pace = pace ?? defaultPace
        let source: CaptureSource
        switch spec {
        case .testPattern(let width, let height, let fps):
            source = .testPattern(width: width, height: height, fps: fps, pace: pace, rotation: videoRotation)
        case .y4m(let path):
            source = try .y4m(input: Self.takeY4MInput(path), loop: loop, pace: pace, rotation: videoRotation)
        case .camera(let path):
            let capturer = CameraVideoCapturer()
            guard let device = try camera.device(capturer, path: path) else {
                throw CLIError.usage("--source camera: no camera found; `camrtp devices` lists them, --source testsrc needs none")
            }
            source = try cameraSource(capturer, device: device, size: size, fpsLimit: fpsLimit)
        case .fakeCamera(let text):
            let fake = try FakeCamera(specs: FakeCameraSpec.list(parsing: text))
            source = try cameraSource(
                fake.capturer, device: camera.positioned(fake.device), size: (fake.format.width, fake.format.height),
                fpsLimit: fake.fps)
        case .auto:
            let capturer = CameraVideoCapturer()
            if let device = try camera.device(capturer, path: nil) {
                source = try cameraSource(capturer, device: device, size: size, fpsLimit: fpsLimit)
                printNote("streaming the first camera, \(device.name) (\(device.path)); --source chooses another")
            } else {
                let mode = SourceSpec.defaultTestPatternMode
                source = .testPattern(width: mode.width, height: mode.height, fps: mode.fps ?? 30, pace: pace, rotation: videoRotation)
                printNote("no camera found; streaming the test pattern (--source chooses)")
            }
        }
        if source.hasCameraClock && rotation != 0 {
            throw CLIError.usage("--rotation is for file and test sources; a camera's rotation comes from --orientation and its sensor")
        }
        if !source.hasCameraClock && camera.isSet {
            throw CLIError.usage("--orientation, --camera-position and --control are for cameras, not \(source.summary)")
        }
        // A default of fast is for the sources that can run so; only an explicit --pace fast is refused.
        if self.pace == .fast && !source.canRunFast {
            throw CLIError.usage("--pace fast is for file and test sources; a camera runs in real time")
        }
        if pace == .fast && source.canRunFast && frames == nil && duration == nil && (loop || !isFile(spec)) {
            throw CLIError.usage("--pace fast with an endless source needs --frames N or --duration SECONDS")
        }
        try checkLimits(width: source.width, height: source.height, fps: source.fps)
        return source
    }

    private func cameraSource(
        _ capturer: CameraVideoCapturer, device: CameraDevice, size: (width: Int, height: Int)?, fpsLimit: Double?
    ) throws -> CaptureSource {
        try camera.configure(capturer, device: device)
        return try .camera(capturer, device: device, size: size, fpsLimit: fpsLimit)
    }

    /// The frame rate an SDP declares: `--fps`, capped by the source's own rate where that is
    /// known without opening a camera. `send` and `sdp` both use it, so their SDPs agree.
    func declaredFrameRate(cap: Double?) throws -> Double? {
        let sourceRate: Double? = switch try spec {
        case .testPattern(_, _, let fps): fps
        case .y4m(let path): try Self.peekY4MInput(path).header.frameRate
        case .auto, .camera, .fakeCamera: nil
        }
        guard let sourceRate else { return cap }
        try checkLimits(width: nil, height: nil, fps: sourceRate)
        return min(cap ?? sourceRate, sourceRate)
    }

    /// Refuses an output that is the `--source` file itself, by device and inode, so also
    /// through a symlink or a hard link: writing it would destroy the input while it is read.
    func checkIsNotInput(_ output: String, option: String) throws {
        guard case .y4m(let path) = try spec else { return }
        var input = stat(), target = stat()
        guard stat(path == "-" ? "/dev/stdin" : path, &input) == 0, stat(output, &target) == 0,
              input.st_dev == target.st_dev, input.st_ino == target.st_ino else { return }
        throw CLIError.usage("\(option) \(output) is the --source file \(path) itself; write to another file")
    }

    /// A source too large or too fast for the encoder is bad input, refused before it streams.
    private func checkLimits(width: Int?, height: Int?, fps: Double) throws {
        if let width, let height, let problem = VideoLimits.sizeProblem(width: width, height: height) {
            throw CLIError.usage("--source \(source): \(problem)")
        }
        if let problem = VideoLimits.frameRateProblem(fps) {
            throw CLIError.usage("--source \(source): its frame rate, \(problem); re-time it first (ffmpeg -r 30)")
        }
    }

    private func isFile(_ spec: SourceSpec) -> Bool {
        if case .y4m = spec { return true }
        return false
    }

    /// Y4M inputs this process has opened, by path. `send` asks for the SDP's frame rate before
    /// it makes the source, and a pipe can be read only once: both use the same open input.
    private static let y4mInputs = Mutex<[String: Y4MInput]>([:])

    /// The open input at `path`, opened on first use.
    private static func peekY4MInput(_ path: String) throws(Y4MError) -> Y4MInput {
        if let input = y4mInputs.withLock({ $0[path] }) { return input }
        let input = try Y4MInput(path: path)
        y4mInputs.withLock { $0[path] = input }
        return input
    }

    /// The open input at `path` for the one source that plays it.
    private static func takeY4MInput(_ path: String) throws(Y4MError) -> Y4MInput {
        let input = try peekY4MInput(path)
        y4mInputs.withLock { $0[path] = nil }
        return input
    }
}
