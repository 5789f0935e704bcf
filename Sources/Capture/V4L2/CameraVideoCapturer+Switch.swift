import Logging
import MediaCore

extension CameraVideoCapturer {
    /// The format of `device` closest to `width × height` and the rate to ask for, up to
    /// `frameRateLimit` (30 when nil), as WebRTC's capture controller picks them.
    public func preferredFormat(
        for device: CameraDevice, width: Int, height: Int, frameRateLimit: Double?
    ) throws -> (format: CameraFormat, fps: Double) {
        let formats = try supportedFormats(for: device)
        guard let format = CameraFormatSelection.closestFormat(
            in: formats, width: width, height: height, frameRate: frameRateLimit ?? CameraFormatSelection.defaultFrameRate) else {
            throw CameraCaptureError.unsupportedPixelFormat(path: device.path, fourcc: "any")
        }
        return (format, CameraFormatSelection.frameRate(for: format, limit: frameRateLimit))
    }

    /// Switches a running capture to `device` in `format` at `fps`, as `RTCCameraVideoCapturer`
    /// swaps the input of its running session. The new camera is opened, configured and given
    /// its buffers while the current one still delivers, so a camera that is missing, busy or
    /// refuses the format fails the switch and the current capture goes on untouched. Only then
    /// is the current camera released and the new one started; the delegate stays, and frames
    /// carry the new camera's rotation (its position in WebRTC's table) from the first one.
    ///
    /// Switching to the camera that already runs in the same format and rate completes at once;
    /// in another format it restarts that camera as `startCapture` does (a node streams to one
    /// file at a time). Without a running capture it fails with `CameraCaptureError.notCapturing`.
    ///
    /// Returns at once. `completion` runs once frames flow from the new camera, or with the error
    /// that prevented the switch; should the new camera fail to start after the old one was
    /// released, the delegate also gets `capturer(_:didFail:)`, since nothing delivers any more.
    public func switchCamera(
        to device: CameraDevice, format: CameraFormat, fps: Double, completion: @escaping @Sendable ((any Error)?) -> Void
    ) {
        guard let current = session.withLock({ $0 }), !current.isStopRequested else {
            completion(CameraCaptureError.notCapturing)
            return
        }
        guard current.device.path != device.path else {
            if current.format == format && current.fps == fps {
                completion(nil)
            } else {
                startCapture(device: device, format: format, fps: fps, completion: completion)
            }
            return
        }
        _ = MediaThread(name: "camrtp.switch", joinable: false) { [self] in
            // A failed switch has let the new camera go before it says so.
            if let error = takeOver(from: current, device: device, format: format, fps: fps, completion: completion) {
                completion(error)
            }
        }
    }

    /// Opens and configures `device`, then makes it the running session in place of `current`;
    /// returns why it could not. A stop or another start since the switch began wins.
    private func takeOver(
        from current: V4L2CaptureSession, device: CameraDevice, format: CameraFormat, fps: Double,
        completion: @escaping @Sendable ((any Error)?) -> Void
    ) -> (any Error)? {
        let stream: V4L2Stream
        do {
            stream = try V4L2Stream(path: device.path, backend: backend, format: format, fps: fps, bufferCount: options.bufferCount)
        } catch {
            logger.info("camera switch failed", metadata: ["device": "\(device.path)", "error": "\(error)"])
            return error
        }
        let next = V4L2CaptureSession(
            device: device, format: format, fps: fps, backend: backend, options: options, logger: logger, owner: self,
            prepared: stream)
        let tookOver = session.withLock { running in
            guard running === current, !current.isStopRequested else { return false }
            next.launch(after: current, completion: completion)
            running = next
            return true
        }
        return tookOver ? nil : CameraCaptureError.stoppedBeforeStart(path: device.path)
    }

    /// Switches a running capture and returns once frames flow from the new camera.
    public func switchCamera(to device: CameraDevice, format: CameraFormat, fps: Double) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            switchCamera(to: device, format: format, fps: fps) { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }
}
