import ArgumentParser
import Capture
import FakeV4L2
import CameraRTP
import Foundation
import MediaCore

/// Where frames come from and when to stop: shared by every command that captures.
struct SourceOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "auto, camera[:DEVICE], testsrc[:WxH[@FPS]], y4m:PATH or fake-camera[:[POSITION=]FOURCC[:WxH[@FPS]],...].",
        discussion: "auto takes the first camera, else the test pattern, and says which. fake-camera:back=YUYV:640x480,front=YUYV:320x240 makes two fake cameras to switch between; the first one streams.",
        valueName: "spec"))
    var source: String = "auto"

    @Option(help: ArgumentHelp("Stop after N captured frames.", valueName: "n"))
    var frames: Int?

    @Option(help: ArgumentHelp("Stop after this many seconds.", valueName: "seconds"))
    var duration: Double?

    @Flag(help: "Loop a file source instead of ending at its end.")
    var loop = false

    @Option(help: ArgumentHelp(
        "realtime or fast. fast runs file and test sources as fast as the encoder goes.", valueName: "pace"))
    var pace: CapturePace?

    @Option(help: ArgumentHelp(
        "Rotation of file and test sources to signal or apply: 0, 90, 180 or 270 (clockwise). Cameras take theirs from --orientation.",
        valueName: "degrees"))
    var rotation: Int = 0

    @OptionGroup var camera: CameraOptions

    func validate() throws {
        if let frames, frames <= 0 { throw ValidationError("--frames must be a positive count, not \(frames)") }
        if let duration, !(duration > 0) { throw ValidationError("--duration must be positive seconds, not \(duration)") }
        guard VideoRotation(degrees: rotation) != nil, (0...270).contains(rotation) else {
            throw ValidationError("--rotation must be 0, 90, 180 or 270, not \(rotation)")
        }
    }

    var videoRotation: VideoRotation { VideoRotation(degrees: rotation) ?? .deg0 }

    var spec: SourceSpec {
        get throws { try SourceSpec(parsing: source) }
    }

    /// Makes the capture source. File and test sources are paced by `defaultPace` unless `--pace`
    /// says; a camera picks the format closest to `size` at up to `fpsLimit`.
    func makeSource(defaultPace: CapturePace, size: (width: Int, height: Int)?, fpsLimit: Double?) throws -> CaptureSource {
        let spec = try spec
        let pace = pace ?? defaultPace
        let source: CaptureSource
        switch spec {
        case .testPattern(let width, let height, let fps):
            source = .testPattern(width: width, height: height, fps: fps, pace: pace, rotation: videoRotation)
        case .y4m(let path):
            source = try .y4m(path: path, loop: loop, pace: pace, rotation: videoRotation)
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
        if pace == .fast && !source.canRunFast {
            throw CLIError.usage("--pace fast is for file and test sources; a camera runs in real time")
        }
        if pace == .fast && frames == nil && duration == nil && (loop || !isFile(spec)) {
            throw CLIError.usage("--pace fast with an endless source needs --frames N or --duration SECONDS")
        }
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
        case .y4m(let path): try Y4MFileSource(path: path).header.frameRate
        case .auto, .camera, .fakeCamera: nil
        }
        guard let sourceRate else { return cap }
        return min(cap ?? sourceRate, sourceRate)
    }

    private func isFile(_ spec: SourceSpec) -> Bool {
        if case .y4m = spec { return true }
        return false
    }
}

/// A note for the person at the terminal, on stderr so stdout stays clean for data.
func printNote(_ text: String) {
    FileHandle.standardError.write(Data(("camrtp: " + text + "\n").utf8))
}
