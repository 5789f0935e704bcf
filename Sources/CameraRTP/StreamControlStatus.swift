import Capture
import MediaCore

/// What a running stream's controls are set to, for `camrtp ctl stats`.
public struct StreamControlStatus: Sendable, Codable, Equatable {
    /// The camera streaming now, in the format the driver agreed to.
    public struct Camera: Sendable, Codable, Equatable {
        public var path: String
        public var name: String
        public var position: CameraPosition
        /// A fourcc such as `YUYV`.
        public var pixelFormat: String
        public var width: Int
        public var height: Int
        /// nil when the driver runs at its own rate.
        public var fps: Double?

        public init(_ status: CameraCaptureStatus) {
            path = status.device.path
            name = status.device.name
            position = status.device.position
            pixelFormat = FourCC.string(status.pixelFormat.fourcc)
            width = status.width
            height = status.height
            fps = status.frameRate
        }
    }

    public var targetBitrateKbps: Int
    public var mirror: Bool
    /// nil for a file or the test pattern, and for a camera not started yet.
    public var camera: Camera?
    /// How the device is held; nil for a file or the test pattern.
    public var orientation: DeviceOrientation?
}
