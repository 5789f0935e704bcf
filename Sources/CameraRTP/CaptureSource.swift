import Foundation
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
    let start: @Sendable () throws -> Void

    public init(
        capturer: any VideoCapturer, width: Int, height: Int, fps: Double, summary: String, canRunFast: Bool,
        start: @escaping @Sendable () throws -> Void
    ) {
        self.capturer = capturer
        self.width = width
        self.height = height
        self.fps = fps
        self.summary = summary
        self.canRunFast = canRunFast
        self.start = start
    }

    /// The test pattern.
    public static func testPattern(width: Int, height: Int, fps: Double, pace: CapturePace, rotation: VideoRotation) -> CaptureSource {
        let source = TestPatternSource(width: width, height: height, fps: fps, pace: pace, rotation: rotation)
        return CaptureSource(
            capturer: source, width: width, height: height, fps: fps,
            summary: "test pattern \(width)x\(height) @ \(formatRate(fps)) fps", canRunFast: true, start: source.startCapture)
    }

    /// A Y4M file, checked before anything streams.
    public static func y4m(path: String, loop: Bool, pace: CapturePace, rotation: VideoRotation) throws(Y4MError) -> CaptureSource {
        let source = try Y4MFileSource(path: path, loop: loop, pace: pace, rotation: rotation)
        let header = source.header
        return CaptureSource(
            capturer: source, width: header.width, height: header.height, fps: header.frameRate,
            summary: "\(path) \(header.width)x\(header.height) @ \(formatRate(header.frameRate)) fps\(loop ? ", looping" : "")",
            canRunFast: true, start: source.startCapture)
    }
}

func formatRate(_ fps: Double) -> String {
    fps == fps.rounded() ? String(Int(fps)) : String(format: "%.2f", fps)
}
