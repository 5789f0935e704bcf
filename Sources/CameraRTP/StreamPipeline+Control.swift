import Capture
import MediaCore

/// Changes to a running stream, as an application makes them on `RTCCameraVideoCapturer` and
/// its track: another camera, camera controls, how the device is held, the mirror. Each is safe
/// from any thread while streaming; blocking device calls run on threads of their own. A change
/// that cannot be made throws and leaves the stream as it was.
extension StreamPipeline {
    /// Target bitrates a running stream takes, in kbit/s, as `camrtp send --bitrate`.
    public static let bitrateRangeKbps = 1...100_000

    /// The camera behind the stream, or nil for a file or the test pattern.
    public var camera: CameraVideoCapturer? { source.capturer as? CameraVideoCapturer }

    /// Sets the encoder's target bitrate after checking it against `bitrateRangeKbps`.
    public func setTargetBitrate(kbps: Int) throws(StreamControlError) {
        guard Self.bitrateRangeKbps.contains(kbps) else { throw .bitrateOutOfRange(kbps) }
        setBitrate(kbps: kbps)
    }

    /// Moves the stream to another camera without stopping it. The new camera runs in the
    /// format closest to the stream's first one; the RTP stream goes on with the same SSRC and
    /// continuous sequence numbers and timestamps, the encoder starts over with a keyframe when
    /// the size changes, and frames carry the new camera's rotation (a front camera takes the
    /// front column of WebRTC's rotation table). The current camera keeps streaming if the new
    /// one is missing or busy. Returns once frames flow from the new camera.
    @discardableResult
    public func switchCamera(to selection: CameraSelection) async throws -> CameraCaptureStatus {
        let camera = try requireCamera("switch")
        guard let current = camera.captureStatus, current.isRunning else { throw StreamControlError.notStreaming }
        let target = (width: source.width, height: source.height, fps: source.fps)
        let choice = await MediaThread.run(name: "camrtp.switch") {
            Result { () throws -> (CameraDevice, CameraFormat, Double) in
                let devices = camera.captureDevices()
                guard let device = selection.resolve(current: current.device, among: devices) else {
                    throw StreamControlError.noSuchCamera(selection, available: devices.map(\.path))
                }
                let (format, fps) = try camera.preferredFormat(
                    for: device, width: target.width, height: target.height, frameRateLimit: target.fps)
                return (device, format, fps)
            }
        }
        let (device, format, fps) = try choice.get()
        try await camera.switchCamera(to: device, format: format, fps: fps)
        guard let status = camera.captureStatus, status.isRunning else { throw StreamControlError.notStreaming }
        return status
    }

    /// Sets a control of the camera streaming now (focus, exposure, zoom, the torch through
    /// `flash_led_mode`) and returns the value the driver then holds. Throws
    /// `CameraControlError` for a control the camera lacks, a read-only one, or a value outside
    /// its range, step or menu.
    @discardableResult
    public func setCameraControl(_ setting: CameraControlSetting) async throws -> Int32 {
        let camera = try requireCamera("control")
        guard let device = camera.captureStatus?.device else { throw StreamControlError.notStreaming }
        return try await MediaThread.run(name: "camrtp.control") {
            Result { () throws -> Int32 in
                try camera.setValue(setting.value, for: setting.control, on: device)
                return try camera.value(of: setting.control, on: device)
            }
        }.get()
    }

    /// How the device is held, which sets the rotation metadata of the frames that follow.
    public func setDeviceOrientation(_ orientation: DeviceOrientation) throws(StreamControlError) {
        try requireCamera("orientation").deviceOrientation = orientation
    }

    /// Flips the picture left to right from the next frame on.
    public func setMirror(_ mirror: Bool) {
        videoSource.mirror = mirror
    }

    /// What the controls are set to now.
    public var controlStatus: StreamControlStatus {
        StreamControlStatus(
            targetBitrateKbps: targetBitrateKbps, mirror: videoSource.mirror,
            camera: camera?.captureStatus.flatMap { $0.isRunning ? StreamControlStatus.Camera($0) : nil },
            orientation: camera?.deviceOrientation)
    }

    private func requireCamera(_ operation: String) throws(StreamControlError) -> CameraVideoCapturer {
        guard let camera else { throw .notACamera(operation: operation, source: source.summary) }
        return camera
    }
}
