import FrameProcessing
#if canImport(Glibc)
import Glibc
#endif
import ImageEncoding
import MediaCore

/// A still picture of one adapted frame: upright, mirrored as the stream is, at the stream's size.
public struct Snapshot: Sendable {
    public let image: EncodedImage
    /// The capture time of the frame it shows, as the source's sinks (the encoder among them) got it.
    public let timestampNs: Int64

    /// Refuses a quality or a skip count that could never work, before any waiting.
    package static func check(quality: Int, framesToSkip: Int = 0) throws(SnapshotError) {
        guard framesToSkip >= 0 else { throw .invalidSkipCount(framesToSkip) }
        do {
            try ImageEncoder.validate(quality: quality)
        } catch {
            throw .encodingFailed(error)
        }
    }

    /// Turns `frame` upright (a rotated copy when it carries a rotation, as a stream that signals
    /// CVO leaves it) and encodes it, on a thread of its own: never the capture thread, never the
    /// concurrency pool.
    package static func encoding(_ frame: VideoFrame, format: ImageFormat, quality: Int) async throws(SnapshotError) -> Snapshot {
        let result = await MediaThread.run(name: "camrtp.snapshot") { () -> Result<Snapshot, SnapshotError> in
            yieldToTheStream()
            return Result { () throws(SnapshotError) in try make(frame, format: format, quality: quality) }
        }
        return try result.get()
    }

    private static func make(_ frame: VideoFrame, format: ImageFormat, quality: Int) throws(SnapshotError) -> Snapshot {
        let picture = try upright(frame)
        do {
            return Snapshot(image: try ImageEncoder.encode(picture, as: format, quality: quality), timestampNs: frame.timestampNs)
        } catch {
            throw .encodingFailed(error)
        }
    }

    /// Lowers the calling thread's scheduling priority (nice 10), so that on a busy machine the
    /// capture and encode threads win the CPU and a slow PNG delays the snapshot, not the stream.
    /// Linux keeps a nice value per thread, and `PRIO_PROCESS` with id 0 means the calling one.
    private static func yieldToTheStream() {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
    }

    /// The frame's picture as a viewer sees it: rotated clockwise by its rotation.
    private static func upright(_ frame: VideoFrame) throws(SnapshotError) -> I420Buffer {
        guard frame.rotation != .deg0 else { return frame.buffer }
        let turns = frame.rotation.swapsDimensions
        let output = I420Buffer(width: turns ? frame.height : frame.width, height: turns ? frame.width : frame.height)
        do {
            try I420Transform.rotate(frame.buffer, by: frame.rotation, into: output)
        } catch {
            throw .rotationFailed(error.detail)
        }
        return output
    }
}
