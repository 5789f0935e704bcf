import CV4L2
import FrameProcessing
import Logging
import MediaCore
import Synchronization

/// One run of a camera: from opening the node to releasing it, on its own `MediaThread`.
/// Everything but the stop flag and the thread slot belongs to that thread.
final class V4L2CaptureSession: @unchecked Sendable {
    let device: CameraDevice
    let format: CameraFormat
    let fps: Double
    /// The stream a camera switch opened and configured before this session took over; the
    /// session's thread takes it, or opens the device itself when there is none.
    private var prepared: V4L2Stream?
    /// True for a switch: the previous camera is released before this one starts, so if this
    /// one cannot start, nothing delivers and the delegate must hear of it.
    private let replacesRunningCapture: Bool
    private let backend: any V4L2Backend
    private let options: CameraCaptureOptions
    private let logger: Logger
    private weak var owner: CameraVideoCapturer?
    private let stopRequested = Atomic<Bool>(false)
    private let thread = Mutex<MediaThread?>(nil)
    private let pool: I420BufferPool
    private var mirrorScratch: I420Buffer?
    private var timestamps: CaptureTimestampValidator

    init(
        device: CameraDevice, format: CameraFormat, fps: Double, backend: any V4L2Backend,
        options: CameraCaptureOptions, logger: Logger, owner: CameraVideoCapturer, prepared: V4L2Stream? = nil
    ) {
        self.device = device
        self.prepared = prepared
        replacesRunningCapture = prepared != nil
        self.format = format
        self.fps = fps
        self.backend = backend
        self.options = options
        self.logger = logger
        self.owner = owner
        // Room for the pictures downstream still holds (adapter, mailbox, encoder) and a few more.
        pool = I420BufferPool(capacity: options.bufferCount + 4)
        timestamps = CaptureTimestampValidator(maxDelayNs: Int64(options.maxTimestampDelayMs) * 1_000_000)
    }

    var isStopRequested: Bool { stopRequested.load(ordering: .acquiring) }

    /// Starts the capture thread. It first waits for `previous` to release its device, so that
    /// a switch never has two sessions holding buffers at once.
    func launch(after previous: V4L2CaptureSession?, completion: (@Sendable ((any Error)?) -> Void)?) {
        thread.withLock { thread in
            thread = MediaThread(name: "camrtp.v4l2") {
                previous?.stopAndWait()
                self.run(completion: completion)
            }
        }
    }

    /// Asks the thread to stop; returns at once.
    func requestStop() {
        stopRequested.store(true, ordering: .releasing)
    }

    /// Asks the thread to stop and waits for it to free the device; from the capture thread
    /// itself (a delegate calling `stopCapture`) it only asks, and the loop ends on return.
    func stopAndWait() {
        requestStop()
        let running = thread.withLock { $0 }
        running?.join()
    }

    private func run(completion: (@Sendable ((any Error)?) -> Void)?) {
        let failure = streamUntilStopped(completion: completion)
        // The device is released by now, so a delegate that restarts on failure finds it free.
        owner?.updateStatus { $0?.isRunning = false }
        if let failure, let owner, !isStopRequested {
            logger.info("camera capture failed", metadata: ["device": "\(device.path)", "error": "\(failure)"])
            owner.delegate?.capturer(owner, didFail: failure)
        }
    }

    /// Opens and configures the device (unless a switch prepared it), starts streaming, reports
    /// the start, and captures until stopped; returns the run-time error that ended capture, if
    /// one did. The stream is freed on return.
    private func streamUntilStopped(completion: (@Sendable ((any Error)?) -> Void)?) -> (any Error)? {
        let stream: V4L2Stream
        do {
            stream = try prepared ?? V4L2Stream(
                path: device.path, backend: backend, format: format, fps: fps, bufferCount: options.bufferCount)
            prepared = nil
            guard !isStopRequested else {
                completion?(CameraCaptureError.stoppedBeforeStart(path: device.path))
                return nil
            }
            try stream.start()
        } catch {
            prepared = nil
            logger.info("camera start failed", metadata: ["device": "\(device.path)", "error": "\(error)"])
            completion?(error)
            return replacesRunningCapture ? error : nil
        }
        logger.info("camera streaming", metadata: [
            "device": "\(device.path)", "format": "\(FourCC.string(stream.pixelFormat.fourcc)) \(stream.width)x\(stream.height)",
            "fps": "\(stream.frameRate.map(FrameRateText.format) ?? "driver default")",
        ])
        publishStatus(stream)
        completion?(nil)
        do {
            try captureFrames(from: stream)
            return nil
        } catch {
            return error
        }
    }

    /// poll → DQBUF → convert → QBUF → deliver, until stopped, unplugged or stalled, or until
    /// the first seconds bring frames of which none decodes.
    private func captureFrames(from stream: V4L2Stream) throws {
        var lastFrameNs = MonotonicClock.nowNs()
        var restartedSinceLastFrame = false
        var undecodable = UndecodableFrameMonitor(startNs: lastFrameNs, timeoutMs: options.undecodableTimeoutMs)
        defer { if let burst = undecodable.endBurst() { warnUndecodable(burst, format: stream.pixelFormat) } }
        let stallTimeoutNs = Int64(options.stallTimeoutMs) * 1_000_000
        while !isStopRequested, owner != nil {
            let events = try stream.handle.pollForFrame(timeoutMs: options.pollIntervalMs)
            if events == 0 {
                guard MonotonicClock.nowNs() - lastFrameNs > stallTimeoutNs else { continue }
                guard !restartedSinceLastFrame else {
                    throw CameraCaptureError.stalled(path: device.path, timeoutMs: options.stallTimeoutMs)
                }
                // Some drivers wedge until the stream is restarted; Chromium and GStreamer do the same.
                logger.info("camera stalled, restarting the stream", metadata: ["device": "\(device.path)"])
                stream.stop()
                try stream.start()
                restartedSinceLastFrame = true
                lastFrameNs = MonotonicClock.nowNs()
                continue
            }
            // The kernel reports a disconnected device as POLLHUP | POLLERR (v4l2_poll).
            if events & Int16(POLLHUP) != 0 {
                throw V4L2Error(operation: "poll", path: device.path, code: ENODEV)
            }
            let dequeued: v4l2_buffer?
            switch Result(catching: { () throws(V4L2Error) in try stream.dequeue() }) {
            case .success(let buffer):
                dequeued = buffer
            case .failure(let error) where error.code == EIO:
                // uAPI: EIO from DQBUF is a transient loss of signal; the frame is lost, not the stream.
                report(dropAt: MonotonicClock.nowNs(), reason: .errorBuffer)
                continue
            case .failure(let error):
                throw error
            }
            guard let buffer = dequeued else {
                if events & Int16(POLLERR) != 0 { throw V4L2Error(operation: "poll", path: device.path, code: EIO) }
                continue
            }
            lastFrameNs = MonotonicClock.nowNs()
            restartedSinceLastFrame = false
            switch try deliver(buffer, from: stream, dequeueNs: lastFrameNs) {
            case true?:
                if let burst = undecodable.converted() { warnUndecodable(burst, format: stream.pixelFormat) }
            case false?:
                if case .fail(let count) = undecodable.failed(nowNs: MonotonicClock.nowNs()) {
                    _ = undecodable.endBurst()
                    throw CameraCaptureError.noDecodableFrames(
                        path: device.path, format: FourCC.string(stream.pixelFormat.fourcc), count: count,
                        seconds: Double(options.undecodableTimeoutMs) / 1000)
                }
            case nil:
                break
            }
        }
    }

    /// One warning for a run of frames that could not be decoded, with its length.
    private func warnUndecodable(_ count: Int, format: PixelFormat) {
        logger.warning(
            "\(count) \(FourCC.string(format.fourcc)) frame\(count == 1 ? "" : "s") in a row from \(device.path) could not be decoded and \(count == 1 ? "was" : "were") dropped; the camera is sending corrupt data")
    }

    /// Converts a dequeued buffer, gives it straight back to the driver, then hands the picture
    /// to the delegate, so no buffer waits on a slow consumer. Returns whether the picture
    /// converted, or nil when it was dropped before conversion.
    private func deliver(_ buffer: v4l2_buffer, from stream: V4L2Stream, dequeueNs: Int64) throws(V4L2Error) -> Bool? {
        let index = Int(buffer.index)
        let isMonotonic = buffer.flags & UInt32(V4L2_BUF_FLAG_TIMESTAMP_MASK) == UInt32(V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC)
        let driverNs = isMonotonic
            ? Int64(buffer.timestamp.tv_sec) * 1_000_000_000 + Int64(buffer.timestamp.tv_usec) * 1_000 : nil
        if buffer.flags & UInt32(V4L2_BUF_FLAG_ERROR) != 0 || Int(buffer.bytesused) < stream.minimumFrameBytes {
            try stream.queue(index: index)
            report(dropAt: dequeueNs, reason: .errorBuffer)
            return nil
        }
        let source = timestamps.source
        let timestampNs = timestamps.timestamp(driverNs: driverNs, dequeueNs: dequeueNs)
        if source != timestamps.source {
            logger.info("camera timestamps: using dequeue time", metadata: [
                "device": "\(device.path)", "reason": "\(timestamps.fallbackReason ?? "")",
            ])
            owner?.updateStatus { $0?.timestampSource = .dequeueTime; $0?.timestampFallbackReason = self.timestamps.fallbackReason }
        }
        guard let picture = pool.makeBuffer(width: stream.width, height: stream.height) else {
            try stream.queue(index: index)
            report(dropAt: timestampNs, reason: .poolExhausted)
            return nil
        }
        let converted = convert(stream.bytes(of: buffer), from: stream, into: picture)
        try stream.queue(index: index)
        guard converted else {
            report(dropAt: timestampNs, reason: .conversionFailed)
            return false
        }
        guard let owner else { return true }
        let rotation = owner.frameRotation(position: device.position).adding(device.sensorRotation)
        owner.delegate?.capturer(owner, didCapture: VideoFrame(buffer: picture, rotation: rotation, timestampNs: timestampNs))
        return true
    }

    /// Converts to I420, mirrored when the options ask it for this camera's position.
    private func convert(_ sample: UnsafeRawBufferPointer, from stream: V4L2Stream, into picture: I420Buffer) -> Bool {
        let rowPixels = stream.pixelFormat.isCompressed ? nil : stream.rowPixels
        do {
            guard options.mirroredPositions.contains(device.position) else {
                try PixelConverter.convertToI420(
                    sample, format: stream.pixelFormat, width: stream.width, height: stream.height,
                    rowPixels: rowPixels, into: picture)
                return true
            }
            let scratch: I420Buffer
            if let existing = mirrorScratch, existing.width == stream.width, existing.height == stream.height {
                scratch = existing
            } else {
                scratch = I420Buffer(width: stream.width, height: stream.height)
                mirrorScratch = scratch
            }
            try PixelConverter.convertToI420(
                sample, format: stream.pixelFormat, width: stream.width, height: stream.height,
                rowPixels: rowPixels, into: scratch)
            try I420Transform.mirror(scratch, into: picture)
            return true
        } catch {
            logger.debug("camera frame conversion failed", metadata: ["error": "\(error)"])
            return false
        }
    }

    private func report(dropAt timestampNs: Int64, reason: FrameDropReason) {
        guard let owner else { return }
        owner.delegate?.capturer(owner, didDropFrame: timestampNs, reason: reason)
    }

    private func publishStatus(_ stream: V4L2Stream) {
        owner?.updateStatus { status in
            status = CameraCaptureStatus(
                device: device, pixelFormat: stream.pixelFormat, width: stream.width, height: stream.height,
                frameRate: stream.frameRate, timestampSource: timestamps.source, timestampFallbackReason: nil,
                isRunning: true)
        }
    }
}
