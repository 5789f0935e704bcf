import Glibc
import Capture
import MediaCore

/// A capturer made from a `SourceSpec`, with what the pipeline needs to know before the first
/// frame: the nominal size and rate, and how to start it.
public struct CaptureSource: Sendable {
    public let capturer: any VideoCapturer
    public let width: Int
    public let height: Int
    public let fps: Double
    /// A person-readable account of the source, such as `test pattern 1280x720 @ 30 fps`.
    public let summary: String
    /// True for sources that can run flat out (`--pace fast`): files and the test pattern.
    public let canRunFast: Bool
    /// True when frames carry a camera's clock, which `TimestampAligner` maps onto ours.
    public let hasCameraClock: Bool
    /// The rotation metadata the frames carry, where the source fixes it (a camera's follows the
    /// device orientation frame by frame, so it says 0).
    public let rotation: VideoRotation
    /// Starts capture; calls back once frames flow, or with the error that stopped it.
    public typealias Start = @Sendable (_ completion: @escaping @Sendable ((any Error)?) -> Void) -> Void
    let start: Start
    /// What ended the source early once it has stopped, such as a damaged file whose good frames
    /// were all delivered (and so encoded); nil for a clean end. The caller reports it.
    public let endedEarly: @Sendable () -> (any Error)?

    public init(
        capturer: any VideoCapturer, width: Int, height: Int, fps: Double, summary: String, canRunFast: Bool,
        hasCameraClock: Bool = false, rotation: VideoRotation = .deg0,
        endedEarly: @escaping @Sendable () -> (any Error)? = { nil }, start: @escaping Start
    ) {
        self.capturer = capturer
        self.width = width
        self.height = height
        self.fps = fps
        self.summary = summary
        self.canRunFast = canRunFast
        self.hasCameraClock = hasCameraClock
        self.rotation = rotation
        self.endedEarly = endedEarly
        self.start = start
    }

    /// The test pattern.
    public static func testPattern(width: Int, height: Int, fps: Double, pace: CapturePace, rotation: VideoRotation) -> CaptureSource {
        let source = TestPatternSource(width: width, height: height, fps: fps, pace: pace, rotation: rotation)
        return CaptureSource(
            capturer: source, width: width, height: height, fps: fps,
            summary: "test pattern \(width)x\(height) @ \(formatRate(fps)) fps", canRunFast: true, rotation: rotation,
            start: { completion in
                source.startCapture()
                completion(nil)
            })
    }

    /// A Y4M file ("-" for standard input), checked before anything streams.
    public static func y4m(path: String, loop: Bool, pace: CapturePace, rotation: VideoRotation) throws(Y4MError) -> CaptureSource {
        try y4m(input: Y4MInput(path: path), loop: loop, pace: pace, rotation: rotation)
    }

    /// A Y4M file or pipe that is already open (and checked).
    public static func y4m(input: Y4MInput, loop: Bool, pace: CapturePace, rotation: VideoRotation) throws(Y4MError) -> CaptureSource {
        let source = try Y4MFileSource(input: input, loop: loop, pace: pace, rotation: rotation)
        let header = source.header
        return CaptureSource(
            capturer: source, width: header.width, height: header.height, fps: header.frameRate,
            summary: "\(input.name) \(header.width)x\(header.height) @ \(formatRate(header.frameRate)) fps\(loop ? ", looping" : "")",
            canRunFast: true, rotation: rotation, endedEarly: { source.damage },
            start: { completion in
                source.startCapture()
                completion(nil)
            })
    }
}

extension CaptureSource {
    /// A V4L2 camera in the format closest to `size` (1280×720 when nil) at up to `fpsLimit`
    /// (30 when nil), as WebRTC's capture controller picks them.
    public static func camera(
        _ capturer: CameraVideoCapturer, device: CameraDevice, size: (width: Int, height: Int)?, fpsLimit: Double?
    ) throws -> CaptureSource {
        let target = size ?? (1280, 720)
        let (format, fps) = try capturer.preferredFormat(for: device, width: target.width, height: target.height, frameRateLimit: fpsLimit)
        return CaptureSource(
            capturer: capturer, width: format.width, height: format.height, fps: fps,
            summary: "\(device.name) (\(device.path)) \(FourCC.string(format.pixelFormat.fourcc)) \(format.width)x\(format.height) @ \(formatRate(fps)) fps",
            canRunFast: false, hasCameraClock: true,
            start: { completion in capturer.startCapture(device: device, format: format, fps: fps, completion: completion) })
    }
}

func formatRate(_ fps: Double) -> String {
    fps == fps.rounded() ? String(Int(fps)) : DecimalText.fixed(fps, decimals: 2)
}
