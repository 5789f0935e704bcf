import MediaCore

/// Where a camera faces, from `V4L2_CID_CAMERA_ORIENTATION` (V4L2 uAPI "Camera Control
/// Reference"); a driver without the control is `external`, as a USB webcam is.
public enum CameraPosition: String, Sendable, CaseIterable, Codable {
    case front, back, external
}

/// A V4L2 node that captures video, the counterpart of an `AVCaptureDevice`.
public struct CameraDevice: Sendable, Hashable, Codable {
    /// The `/dev/v4l/by-id` link name when udev made one, else the driver's `bus_info`.
    public var uniqueID: String
    /// The driver's `card` name, such as "HD Webcam C615".
    public var name: String
    public var driver: String
    public var busInfo: String
    /// The device node, such as `/dev/video0`.
    public var path: String
    public var position: CameraPosition
    /// The clockwise rotation that shows the sensor's pictures upright, from
    /// `V4L2_CID_CAMERA_SENSOR_ROTATION` (which the kernel states counter-clockwise).
    public var sensorRotation: VideoRotation

    public init(
        uniqueID: String, name: String, driver: String, busInfo: String, path: String,
        position: CameraPosition = .external, sensorRotation: VideoRotation = .deg0
    ) {
        self.uniqueID = uniqueID
        self.name = name
        self.driver = driver
        self.busInfo = busInfo
        self.path = path
        self.position = position
        self.sensorRotation = sensorRotation
    }
}

/// A span of frame rates a format offers at one size; a discrete rate has `minFPS == maxFPS`.
public struct FrameRateRange: Sendable, Hashable, Codable {
    public var minFPS: Double
    public var maxFPS: Double

    public init(minFPS: Double, maxFPS: Double) {
        self.minFPS = minFPS
        self.maxFPS = maxFPS
    }
}

/// One pixel format at one size with the frame rates the driver offers there, the counterpart
/// of an `AVCaptureDevice.Format`.
public struct CameraFormat: Sendable, Hashable, Codable {
    public var pixelFormat: PixelFormat
    public var width: Int
    public var height: Int
    /// Empty when the driver does not enumerate frame intervals.
    public var frameRateRanges: [FrameRateRange]
    /// libv4l2 converts this format in software from another one (`V4L2_FMT_FLAG_EMULATED`).
    public var isEmulated: Bool

    public init(pixelFormat: PixelFormat, width: Int, height: Int, frameRateRanges: [FrameRateRange], isEmulated: Bool = false) {
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
        self.frameRateRanges = frameRateRanges
        self.isEmulated = isEmulated
    }

    /// The highest rate offered, or nil when the driver lists none.
    public var maxFrameRate: Double? { frameRateRanges.map(\.maxFPS).max() }

    /// Such as `MJPG 1280x720 @ 30, 15 fps (emulated)`.
    public var summary: String {
        let rates = frameRateRanges.map { range in
            range.minFPS == range.maxFPS ? FrameRateText.format(range.maxFPS)
                : "\(FrameRateText.format(range.minFPS))-\(FrameRateText.format(range.maxFPS))"
        }
        let rateText = rates.isEmpty ? "" : " @ \(rates.joined(separator: ", ")) fps"
        return "\(FourCC.string(pixelFormat.fourcc)) \(width)x\(height)\(rateText)\(isEmulated ? " (emulated)" : "")"
    }
}

enum FrameRateText {
    /// `30`, or `29.97` for rates that are not whole.
    static func format(_ fps: Double) -> String {
        fps.rounded() == fps ? String(Int(fps)) : String((fps * 100).rounded() / 100)
    }
}

/// What device discovery found: the cameras, and the video nodes it could not look at with why.
public struct CameraDiscovery: Sendable {
    public var devices: [CameraDevice]
    /// Nodes that failed to open or answer, such as ones the user has no permission for.
    public var failures: [V4L2Error]
}
