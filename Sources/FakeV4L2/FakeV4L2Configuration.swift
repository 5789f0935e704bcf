import Capture
import CV4L2
import FoundationEssentials
import Glibc
import MediaCore

/// A frame size, in pixels.
public struct FakeFrameSize: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(_ width: Int, _ height: Int) {
        self.width = width
        self.height = height
    }

    public var description: String { "\(width)x\(height)" }
}

/// The sizes a fake format offers, in the three shapes `VIDIOC_ENUM_FRAMESIZES` reports.
public enum FakeFrameSizes: Sendable {
    case discrete([FakeFrameSize])
    case stepwise(min: FakeFrameSize, max: FakeFrameSize, stepWidth: Int, stepHeight: Int)
    case continuous(min: FakeFrameSize, max: FakeFrameSize)

    func contains(_ size: FakeFrameSize) -> Bool {
        switch self {
        case .discrete(let sizes): return sizes.contains(size)
        case .stepwise(let low, let high, let stepWidth, let stepHeight):
            return (low.width...high.width).contains(size.width) && (low.height...high.height).contains(size.height)
                && (size.width - low.width) % stepWidth == 0 && (size.height - low.height) % stepHeight == 0
        case .continuous(let low, let high):
            return (low.width...high.width).contains(size.width) && (low.height...high.height).contains(size.height)
        }
    }

    /// The supported size nearest to `size`, as a driver's `S_FMT` picks it.
    func nearest(to size: FakeFrameSize) -> FakeFrameSize {
        switch self {
        case .discrete(let sizes):
            return sizes.min { abs($0.width - size.width) + abs($0.height - size.height)
                < abs($1.width - size.width) + abs($1.height - size.height) } ?? size
        case .stepwise(let low, let high, let stepWidth, let stepHeight):
            func snap(_ value: Int, _ low: Int, _ high: Int, _ step: Int) -> Int {
                low + (min(max(value, low), high) - low) / step * step
            }
            return FakeFrameSize(snap(size.width, low.width, high.width, stepWidth), snap(size.height, low.height, high.height, stepHeight))
        case .continuous(let low, let high):
            return FakeFrameSize(min(max(size.width, low.width), high.width), min(max(size.height, low.height), high.height))
        }
    }
}

/// The rates a fake format offers, as `VIDIOC_ENUM_FRAMEINTERVALS` reports them.
public enum FakeFrameRates: Sendable {
    /// Whole rates, highest first.
    case discrete([Int])
    case continuous(minFPS: Int, maxFPS: Int)
}

/// One pixel format of a fake device.
public struct FakeFormat: Sendable {
    public var pixelFormat: PixelFormat
    public var sizes: FakeFrameSizes
    public var frameRates: FakeFrameRates
    /// Listed with `V4L2_FMT_FLAG_EMULATED`, as libv4l2 lists its software conversions.
    public var isEmulated: Bool
    /// A bus budget such as USB 2's: rates whose frames would exceed it are not offered, which
    /// is why real webcams run raw formats slowly at large sizes.
    public var maxBytesPerSecond: Int?

    public init(
        _ pixelFormat: PixelFormat, sizes: FakeFrameSizes, frameRates: FakeFrameRates,
        isEmulated: Bool = false, maxBytesPerSecond: Int? = nil
    ) {
        self.pixelFormat = pixelFormat
        self.sizes = sizes
        self.frameRates = frameRates
        self.isEmulated = isEmulated
        self.maxBytesPerSecond = maxBytesPerSecond
    }

    /// MJPEG at the sizes the committed fixture frames have.
    public static func mjpeg(frameRates: FakeFrameRates = .discrete([30, 15])) -> FakeFormat {
        FakeFormat(.mjpeg, sizes: .discrete(FakeMJPEGFrames.sizes), frameRates: frameRates)
    }

    /// Bytes the driver reserves per buffer (`sizeimage`); MJPEG gets a raw frame's worth, as UVC does.
    func bufferBytes(_ size: FakeFrameSize) -> Int {
        pixelFormat.frameByteCount(width: size.width, height: size.height) ?? size.width * size.height * 2
    }

    /// The rates offered at `size` within the bus budget: discrete ones highest first, or a
    /// continuous range; nil when the budget allows none.
    func rates(at size: FakeFrameSize) -> FakeFrameRates? {
        let budget = maxBytesPerSecond.map { $0 / max(1, bufferBytes(size)) } ?? .max
        switch frameRates {
        case .discrete(let rates):
            let offered = rates.filter { $0 <= budget }.sorted(by: >)
            return offered.isEmpty ? nil : .discrete(offered)
        case .continuous(let low, let high):
            return min(high, budget) >= low ? .continuous(minFPS: low, maxFPS: min(high, budget)) : nil
        }
    }

    /// The offered rate nearest to `fps`, as a driver's `S_PARM` picks it.
    func nearestRate(to fps: Double, at size: FakeFrameSize) -> Int? {
        switch rates(at: size) {
        case .discrete(let rates): rates.min { abs(Double($0) - fps) < abs(Double($1) - fps) }
        case .continuous(let low, let high): min(max(Int(fps.rounded()), low), high)
        case nil: nil
        }
    }
}

/// A control of a fake device, with the kernel control framework's rules.
public struct FakeControl: Sendable {
    public enum Kind: Sendable {
        case integer
        case boolean
        /// Menu entries by index; indexes between minimum and maximum that are missing are gaps.
        case menu([Int32: String])
    }

    public var id: UInt32
    public var name: String
    public var kind: Kind
    public var minimum: Int32
    public var maximum: Int32
    public var step: Int32
    public var defaultValue: Int32
    public var value: Int32
    public var isReadOnly: Bool

    public init(
        id: UInt32, name: String, kind: Kind, minimum: Int32, maximum: Int32, step: Int32 = 1,
        defaultValue: Int32, isReadOnly: Bool = false
    ) {
        self.id = id
        self.name = name
        self.kind = kind
        self.minimum = minimum
        self.maximum = maximum
        self.step = step
        self.defaultValue = defaultValue
        value = defaultValue
        self.isReadOnly = isReadOnly
    }

    /// The controls a typical UVC webcam has, with its usual ranges. Exposure's menu has gaps,
    /// as UVC's does (only manual and aperture priority).
    public static let webcamControls: [FakeControl] = [
        FakeControl(id: CAMRTP_V4L2_CID_BRIGHTNESS, name: "Brightness", kind: .integer, minimum: -64, maximum: 64, defaultValue: 0),
        FakeControl(id: CAMRTP_V4L2_CID_CONTRAST, name: "Contrast", kind: .integer, minimum: 0, maximum: 95, defaultValue: 32),
        FakeControl(id: CAMRTP_V4L2_CID_SATURATION, name: "Saturation", kind: .integer, minimum: 0, maximum: 100, defaultValue: 64),
        FakeControl(id: CAMRTP_V4L2_CID_SHARPNESS, name: "Sharpness", kind: .integer, minimum: 0, maximum: 7, defaultValue: 3),
        FakeControl(
            id: CAMRTP_V4L2_CID_POWER_LINE_FREQUENCY, name: "Power Line Frequency",
            kind: .menu([0: "Disabled", 1: "50 Hz", 2: "60 Hz"]), minimum: 0, maximum: 2, defaultValue: 1),
        FakeControl(id: CAMRTP_V4L2_CID_AUTO_WHITE_BALANCE, name: "White Balance, Auto", kind: .boolean, minimum: 0, maximum: 1, defaultValue: 1),
        FakeControl(
            id: CAMRTP_V4L2_CID_WHITE_BALANCE_TEMPERATURE, name: "White Balance Temperature", kind: .integer,
            minimum: 2800, maximum: 6500, step: 10, defaultValue: 4600),
        FakeControl(
            id: CAMRTP_V4L2_CID_EXPOSURE_AUTO, name: "Auto Exposure",
            kind: .menu([1: "Manual Mode", 3: "Aperture Priority Mode"]), minimum: 0, maximum: 3, defaultValue: 3),
        FakeControl(id: CAMRTP_V4L2_CID_EXPOSURE_ABSOLUTE, name: "Exposure Time, Absolute", kind: .integer, minimum: 3, maximum: 2047, defaultValue: 166),
        FakeControl(id: CAMRTP_V4L2_CID_FOCUS_AUTO, name: "Focus, Automatic Continuous", kind: .boolean, minimum: 0, maximum: 1, defaultValue: 1),
        FakeControl(id: CAMRTP_V4L2_CID_FOCUS_ABSOLUTE, name: "Focus, Absolute", kind: .integer, minimum: 0, maximum: 250, step: 5, defaultValue: 0),
        FakeControl(id: CAMRTP_V4L2_CID_ZOOM_ABSOLUTE, name: "Zoom, Absolute", kind: .integer, minimum: 100, maximum: 500, defaultValue: 100),
    ]

    /// `V4L2_CID_CAMERA_ORIENTATION`, read-only, as sensor drivers expose it from firmware.
    public static func orientation(_ position: CameraPosition) -> FakeControl {
        let value: Int32 = switch position {
        case .front: V4L2_CAMERA_ORIENTATION_FRONT
        case .back: V4L2_CAMERA_ORIENTATION_BACK
        case .external: V4L2_CAMERA_ORIENTATION_EXTERNAL
        }
        return FakeControl(
            id: CAMRTP_V4L2_CID_CAMERA_ORIENTATION, name: "Camera Orientation",
            kind: .menu([0: "Front", 1: "Back", 2: "External"]), minimum: 0, maximum: 2, defaultValue: value, isReadOnly: true)
    }

    /// `V4L2_CID_FLASH_LED_MODE`, off at first: the torch of a phone's back camera.
    public static let flashLEDMode = FakeControl(
        id: CAMRTP_V4L2_CID_FLASH_LED_MODE, name: "LED Mode", kind: .menu([0: "Off", 1: "Flash", 2: "Torch"]),
        minimum: 0, maximum: 2, defaultValue: 0)

    /// `V4L2_CID_CAMERA_SENSOR_ROTATION`: degrees counter-clockwise, read-only.
    public static func sensorRotation(counterClockwiseDegrees: Int32) -> FakeControl {
        FakeControl(
            id: CAMRTP_V4L2_CID_CAMERA_SENSOR_ROTATION, name: "Camera Sensor Rotation", kind: .integer,
            minimum: 0, maximum: 270, step: 90, defaultValue: counterClockwiseDegrees, isReadOnly: true)
    }
}

/// What a fake device is and how it behaves.
public struct FakeV4L2Configuration: Sendable {
    public enum Kind: Sendable {
        /// A camera: `V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING`.
        case videoCapture
        /// A UVC metadata node: `V4L2_CAP_META_CAPTURE`.
        case metadataCapture
        /// A codec or scaler: `V4L2_CAP_VIDEO_M2M`.
        case memoryToMemory
    }

    public var path: String
    public var card: String
    public var busInfo: String
    public var kind: Kind
    /// The `/dev/v4l/by-id` link name, if udev would make one.
    public var persistentName: String?
    public var formats: [FakeFormat]
    public var controls: [FakeControl]
    /// A driver that accepts `VIDIOC_S_PARM` but keeps its rate.
    public var ignoresFrameRate: Bool
    /// A driver whose `VIDIOC_S_FMT` answers with this size whatever was asked.
    public var forcedSize: FakeFrameSize?
    /// False for a driver that stamps buffers `V4L2_BUF_FLAG_TIMESTAMP_COPY` instead of monotonic time.
    public var monotonicTimestamps: Bool
    /// Pixels of padding after each row of raw formats (an even number), as ISPs align
    /// `bytesperline`; chroma rows are padded in proportion.
    public var rowPaddingPixels: Int

    public init(
        path: String = "/dev/video0", card: String = "camrtp fake camera", busInfo: String? = nil,
        kind: Kind = .videoCapture, persistentName: String? = nil, formats: [FakeFormat] = FakeV4L2Configuration.webcamFormats,
        controls: [FakeControl] = FakeControl.webcamControls, ignoresFrameRate: Bool = false,
        forcedSize: FakeFrameSize? = nil, monotonicTimestamps: Bool = true, rowPaddingPixels: Int = 0
    ) {
        precondition(rowPaddingPixels >= 0 && rowPaddingPixels % 2 == 0, "row padding must be even")
        self.path = path
        self.card = card
        self.busInfo = busInfo ?? "platform:camrtp-fake-\(URL(fileURLWithPath: path).lastPathComponent)"
        self.kind = kind
        self.persistentName = persistentName
        self.formats = formats
        self.controls = controls
        self.ignoresFrameRate = ignoresFrameRate
        self.forcedSize = forcedSize
        self.monotonicTimestamps = monotonicTimestamps
        self.rowPaddingPixels = rowPaddingPixels
    }

    /// A UVC webcam on USB 2: YUYV everywhere but slow above VGA, MJPEG fast, and a YU12 that
    /// libv4l2 emulates from YUYV.
    public static let webcamFormats: [FakeFormat] = [
        FakeFormat(
            .yuyv, sizes: .discrete([FakeFrameSize(640, 480), FakeFrameSize(320, 240), FakeFrameSize(1280, 720)]),
            frameRates: .discrete([30, 15, 10, 5]), maxBytesPerSecond: 24_000_000),
        .mjpeg(),
        FakeFormat(
            .i420, sizes: .discrete([FakeFrameSize(640, 480), FakeFrameSize(320, 240), FakeFrameSize(1280, 720)]),
            frameRates: .discrete([30, 15, 10, 5]), isEmulated: true, maxBytesPerSecond: 24_000_000),
    ]

    /// An ISP-style sensor pipeline: NV12 at any 16×8-aligned size with continuous rates, on
    /// the back of a device and mounted at 90°.
    public static func ispCamera(path: String = "/dev/video2") -> FakeV4L2Configuration {
        FakeV4L2Configuration(
            path: path, card: "camrtp fake ISP", busInfo: "platform:camrtp-isp", persistentName: nil,
            formats: [
                FakeFormat(
                    .nv12, sizes: .stepwise(min: FakeFrameSize(64, 64), max: FakeFrameSize(1920, 1080), stepWidth: 16, stepHeight: 8),
                    frameRates: .continuous(minFPS: 1, maxFPS: 60)),
                FakeFormat(.nv21, sizes: .continuous(min: FakeFrameSize(64, 64), max: FakeFrameSize(1920, 1080)), frameRates: .discrete([30])),
            ],
            controls: [FakeControl.orientation(.back), FakeControl.sensorRotation(counterClockwiseDegrees: 270)])
    }
}

/// The committed MJPEG fixture (Fixtures/): frames 0–3 of `TestPatternRenderer` per size, written
/// as Y4M and encoded with `ffmpeg -i pattern.y4m -c:v mjpeg -strict -1 -q:v 4 -pix_fmt yuv420p
/// pattern-WxH-%d.jpg` (limited range kept as is), so a decoded frame can be checked against
/// the renderer. The binary carries it (`FakeMJPEGFixture.swift`), so the fake camera needs no
/// file beside it.
enum FakeMJPEGFrames {
    static let sizes = [FakeFrameSize(640, 480), FakeFrameSize(1280, 720)]
    static let framesPerSize = 4

    /// Decoded on first use: only a fake camera streaming MJPEG pays for it.
    private static let cache: [FakeFrameSize: [[UInt8]]] = base64.mapValues { frames in
        frames.compactMap { text in Data(base64Encoded: text, options: .ignoreUnknownCharacters).map { [UInt8]($0) } }
    }

    /// The frames at `size`, which frame `n` of a stream cycles through as `n % count`.
    static func frames(at size: FakeFrameSize) -> [[UInt8]] {
        cache[size] ?? []
    }
}
