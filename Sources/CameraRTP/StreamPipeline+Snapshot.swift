import Adaptation
import ImageEncoding

extension StreamPipeline {
    /// A still of the next frame the pipeline hands to its encoder: the same crop, scale and
    /// mirror as the stream, upright even when the stream signals the rotation with CVO instead
    /// of applying it, and stamped with that frame's capture time (`Snapshot.timestampNs`, the
    /// encoded frame's too). The stream loses no frame to it: the frame is copied on the capture
    /// thread and encoded on a thread of its own.
    ///
    /// Waits for the next frame; throws `.pipelineStopped` when the pipeline stops (or has
    /// stopped) first, `.cancelled` when the task is cancelled. Each call leaves a small stop
    /// handler with the pipeline until it stops.
    public func snapshot(format: ImageFormat, quality: Int = ImageEncoder.defaultQuality) async throws(SnapshotError) -> Snapshot {
        try Snapshot.check(quality: quality)
        let request = NextFrameRequest()
        control.whenStopped { [weak request] in request?.cancel(with: .pipelineStopped) }
        let frame = try await videoSource.nextFrame(request)
        return try await Snapshot.encoding(frame, format: format, quality: quality)
    }
}
