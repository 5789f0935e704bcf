import ImageEncoding
import MediaCore

extension VideoSource {
    /// A still of the next frame this source delivers to its sinks, after letting `framesToSkip`
    /// pass: cropped, scaled and mirrored as its sinks get it, and upright whether the source
    /// applies the rotation or leaves it to the receiver (CVO). The frame is copied on the
    /// capture thread and encoded on a thread of its own, so the sinks lose nothing.
    ///
    /// Waits until a frame comes: throws `.sourceFailed` or `.sourceFinished` when the capturer
    /// ends first, `.cancelled` when the task is cancelled.
    public func snapshot(
        format: ImageFormat, quality: Int = ImageEncoder.defaultQuality, skipping framesToSkip: Int = 0
    ) async throws(SnapshotError) -> Snapshot {
        try Snapshot.check(quality: quality, framesToSkip: framesToSkip)
        let frame = try await nextFrame(NextFrameRequest(skipping: framesToSkip))
        return try await Snapshot.encoding(frame, format: format, quality: quality)
    }

    /// Subscribes `request` and waits for its frame (a copy, rotation still as metadata).
    package func nextFrame(_ request: NextFrameRequest) async throws(SnapshotError) -> VideoFrame {
        let token = addSink(request)
        request.subscribed { [weak self] in self?.removeSink(token) }
        let outcome = await withTaskCancellationHandler {
            await request.outcome()
        } onCancel: {
            request.cancel(with: .cancelled)
        }
        return try outcome.get()
    }
}
