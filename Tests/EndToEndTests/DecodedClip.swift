import Capture
import FrameProcessing
import MediaCore
import TestSupport

/// What a receiver decoded, matched frame by frame to the test-pattern clip it came from by the
/// frame number each picture carries in its bar code.
struct DecodedClip {
    let width: Int
    let height: Int
    let indices: [Int?]
    let psnrs: [Double]

    /// Reads `path` and compares each frame with the clip's frame of the same number.
    init(path: String, source: [I420Buffer]) throws {
        let (header, frames) = try Y4MFile.readFrames(path)
        width = header.width
        height = header.height
        indices = frames.map { TestPatternRenderer.readIndex(from: $0) }
        psnrs = zip(frames, indices).compactMap { frame, index in
            guard let index, index < source.count else { return nil }
            return I420Transform.psnr(frame, source[index])
        }
    }

    var count: Int { indices.count }
    var minimumPSNR: Double { psnrs.min() ?? 0 }
    var meanPSNR: Double { psnrs.isEmpty ? 0 : psnrs.reduce(0, +) / Double(psnrs.count) }
}

/// A test-pattern Y4M clip in a temporary folder, and its frames.
struct SourceClip {
    let folder = TemporaryDirectory()
    let path: String
    let frames: [I420Buffer]

    init(width: Int = 320, height: Int = 240, count: Int = 60, fps: Int = 30) throws {
        path = folder.file("clip.y4m")
        try Y4MFile.writeTestPattern(to: path, width: width, height: height, count: count, fps: fps)
        frames = try Y4MFile.readFrames(path).frames
    }
}
