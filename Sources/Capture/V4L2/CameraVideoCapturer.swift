import Glibc
import Logging
import MediaCore
import Synchronization

/// Tuning for `CameraVideoCapturer`.
public struct CameraCaptureOptions: Sendable {
    /// Driver buffers to map; 4 lets the driver fill while one is converted.
    public var bufferCount: Int
    /// Camera positions whose pictures are mirrored left to right (a selfie view).
    public var mirroredPositions: Set<CameraPosition>
    /// No frame for this long counts as a stall: the stream restarts once, then capture fails.
    public var stallTimeoutMs: Int
    /// A driver timestamp older than this at dequeue is not trusted.
    public var maxTimestampDelayMs: Int
    /// How long one poll waits, which bounds how soon a stop is noticed.
    public var pollIntervalMs: Int32
    /// Frames that arrive but none of which can be decoded for this long from the start fail
    /// capture (`CameraCaptureError.noDecodableFrames`).
    public var undecodableTimeoutMs: Int

    public init(
        bufferCount: Int = 4, mirroredPositions: Set<CameraPosition> = [], stallTimeoutMs: Int = 2000,
        maxTimestampDelayMs: Int = 1000, pollIntervalMs: Int32 = 50, undecodableTimeoutMs: Int = 3000
    ) {
        self.bufferCount = bufferCount
        self.mirroredPositions = mirroredPositions
        self.stallTimeoutMs = stallTimeoutMs
        self.maxTimestampDelayMs = maxTimestampDelayMs
        self.pollIntervalMs = pollIntervalMs
        self.undecodableTimeoutMs = undecodableTimeoutMs
    }
}

/// What the running (or last) capture negotiated with the driver.
public struct CameraCaptureStatus: Sendable, Equatable {
    public var device: CameraDevice
    /// The format, size and rate the driver delivers, which it may have adjusted from the request.
    public var pixelFormat: PixelFormat
    public var width: Int
    public var height: Int
    /// nil when the driver cannot set a rate and runs at its own.
    public var frameRate: Double?
    public var timestampSource: CaptureTimestampSource
    /// Why driver timestamps were given up, once they were.
    public var timestampFallbackReason: String?
    public var isRunning: Bool
}

/// Captures a V4L2 camera and delivers I420 frames with nanosecond capture times and rotation
/// metadata to its delegate, with the flow of WebRTC's `RTCCameraVideoCapturer`: discover
/// devices, pick a format, `startCapture(device:format:fps:)`, frames on the capture thread,
/// `stopCapture`. Starting again while running switches camera or format in one step: the old
/// device is released before the new one is opened, and the delegate stays. `switchCamera`
/// opens the new camera first and keeps the old one streaming if that fails.
public final class CameraVideoCapturer: VideoCapturer {
    let backend: any V4L2Backend
    let options: CameraCaptureOptions
    let logger: Logger
    private let delegateSlot = WeakDelegate()
    /// The last session started; it stays after stopping so the next start or stop joins its thread.
    /// A stop flags it under this lock, so that a camera switch either takes over from a running
    /// session or sees that it was stopped.
    let session = Mutex<V4L2CaptureSession?>(nil)
    private let status = Mutex<CameraCaptureStatus?>(nil)
    private let orientation = Mutex<(device: DeviceOrientation, lastRotation: VideoRotation)>((.unknown, .deg0))

    public var delegate: (any VideoCapturerDelegate)? {
        get { delegateSlot.value }
        set { delegateSlot.value = newValue }
    }

    /// - Parameter backend: the devices to use; `FakeV4L2System` runs the same code without a camera.
    public init(
        backend: any V4L2Backend = LibV4L2Backend(), options: CameraCaptureOptions = CameraCaptureOptions(),
        logger: Logger = Logger(label: "camrtp.camera")
    ) {
        self.backend = backend
        self.options = options
        self.logger = logger
    }

    deinit {
        session.withLock { $0 }?.stopAndWait()
    }

    // MARK: Devices and formats

    /// The cameras there are now, in node order (`/dev/video0` first).
    public func captureDevices() -> [CameraDevice] {
        discoverDevices().devices
    }

    /// The cameras, and the video nodes that could not be examined (no permission, busy).
    public func discoverDevices() -> CameraDiscovery {
        var discovery = CameraDiscovery(devices: [], failures: [])
        for path in V4L2NodeName.sorted(backend.videoNodePaths()) {
            do {
                let handle = try V4L2DeviceHandle(path: path, backend: backend)
                if let device = try handle.cameraDevice(persistentName: backend.persistentName(ofNode: path)) {
                    discovery.devices.append(device)
                }
            } catch {
                discovery.failures.append(error)
            }
        }
        return discovery
    }

    /// The camera at `path` (`/dev/video0`), for a user who names the node.
    public func captureDevice(path: String) throws -> CameraDevice {
        let handle = try V4L2DeviceHandle(path: path, backend: backend)
        guard let device = try handle.cameraDevice(persistentName: backend.persistentName(ofNode: path)) else {
            throw CameraCaptureError.notACamera(path: path)
        }
        return device
    }

    /// Every format × size × rate range the camera offers, native formats first.
    public func supportedFormats(for device: CameraDevice) throws(V4L2Error) -> [CameraFormat] {
        try V4L2DeviceHandle(path: device.path, backend: backend).supportedFormats()
    }

    // MARK: Orientation

    /// How the device is held; sets the rotation metadata of the frames that follow.
    public var deviceOrientation: DeviceOrientation {
        get { orientation.withLock { $0.device } }
        set { orientation.withLock { $0.device = newValue } }
    }

    /// The table rotation for a frame from a camera at `position`, remembering it for the
    /// orientations that keep the last one.
    func frameRotation(position: CameraPosition) -> VideoRotation {
        orientation.withLock { state in
            state.lastRotation = CameraRotation.rotation(for: state.device, position: position, previous: state.lastRotation)
            return state.lastRotation
        }
    }

    // MARK: Capture

    /// What the current or last capture negotiated, or nil before the first start.
    public var captureStatus: CameraCaptureStatus? { status.withLock { $0 } }

    func updateStatus(_ change: (inout CameraCaptureStatus?) -> Void) {
        status.withLock { change(&$0) }
    }

    /// Starts capturing `device` in `format` at `fps`, switching from any capture that runs.
    /// Returns at once; `completion` runs on the capture thread once frames flow, or with the
    /// error that prevented it.
    public func startCapture(
        device: CameraDevice, format: CameraFormat, fps: Double,
        completion: (@Sendable ((any Error)?) -> Void)? = nil
    ) {
        let next = V4L2CaptureSession(
            device: device, format: format, fps: fps, backend: backend, options: options, logger: logger, owner: self)
        // Launching under the lock means a concurrent stop finds the new thread and waits for it.
        session.withLock { current in
            next.launch(after: current, completion: completion)
            current = next
        }
    }

    /// Starts capturing and returns once frames flow.
    public func startCapture(device: CameraDevice, format: CameraFormat, fps: Double) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            startCapture(device: device, format: format, fps: fps) { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }

    /// Stops capture and releases the device. When this returns, no delegate call is running
    /// or will come; from a delegate callback it returns at once and capture ends after it.
    public func stopCapture() {
        let current = session.withLock { current in
            current?.requestStop()
            return current
        }
        current?.stopAndWait()
    }

    /// Stops capture on another thread and calls `completion` when the device is released.
    public func stopCapture(completion: @escaping @Sendable () -> Void) {
        _ = MediaThread(name: "camrtp.stop", joinable: false) { [self] in
            stopCapture()
            completion()
        }
    }

    /// Stops capture and returns when the device is released.
    public func stopCapture() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            stopCapture { continuation.resume() }
        }
    }
}
