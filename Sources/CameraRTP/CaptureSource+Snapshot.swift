import Adaptation
import ImageEncoding
import MediaCore

extension CaptureSource {
    /// Takes one still, as `camrtp snapshot` does: starts the source, adapts its frames as a
    /// stream would (centred crop and scale to `outputSize`, `mirror`), lets `warmupFrames` pass
    /// (a camera's exposure and white balance settle over its first frames), stops the source
    /// once it has the next one, and encodes that frame upright.
    ///
    /// Throws the source's own error (a busy or missing camera, say) when it cannot start or fails
    /// while warming up, and `SnapshotError` for the rest.
    public func snapshot(
        format: ImageFormat, quality: Int = ImageEncoder.defaultQuality, outputSize: (width: Int, height: Int)? = nil,
        mirror: Bool = false, warmupFrames: Int = 0
    ) async throws -> Snapshot {
        try Snapshot.check(quality: quality, framesToSkip: warmupFrames)
        let videoSource = VideoSource(options: VideoSourceOptions(mirror: mirror, alignTimestamps: hasCameraClock))
        if let outputSize {
            videoSource.adaptOutputFormat(width: outputSize.width, height: outputSize.height, fps: nil)
        }
        capturer.delegate = videoSource
        let request = NextFrameRequest(skipping: warmupFrames)
        start { error in
            if let error { request.cancel(with: .sourceFailed(error)) }
        }
        let frame: VideoFrame
        do {
            frame = try await videoSource.nextFrame(request)
        } catch {
            await stop()
            if case .sourceFailed(let cause) = error { throw cause }
            throw error
        }
        await stop()
        return try await Snapshot.encoding(frame, format: format, quality: quality)
    }

    /// Stops capture on a thread of our own: it joins the capture thread.
    private func stop() async {
        let capturer = capturer
        await MediaThread.run(name: "camrtp.stop") { capturer.stopCapture() }
    }
}
