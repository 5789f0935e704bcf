import Capture
import Glibc
import Logging
import MediaCore

/// A bad `fake-camera` spec.
public struct FakeCameraSpecError: Error, CustomStringConvertible, Sendable, Equatable {
    public let spec: String
    public let problem: String

    public var description: String {
        "FakeCameraSpecError: '\(spec)' \(problem); expected [POSITION=]FOURCC[:WxH[@FPS]][:corrupt[=N]] such as MJPG:1280x720@30, YUYV or front=YUYV:320x240, several cameras separated by commas"
    }
}

/// One camera of `--source fake-camera[:CAMERA[,CAMERA...]]`, where CAMERA is
/// `[POSITION=]FOURCC[:WxH[@FPS]][:corrupt[=N]]`, as Chromium's `--use-fake-device-for-media-stream`
/// does: a fake camera offering exactly this format, facing `position` (front, back or external)
/// when given. `back=YUYV:640x480,front=YUYV:320x240` is a phone's pair, for switching cameras;
/// `MJPG:640x480:corrupt=30` a failing camera whose first 30 frames do not decode.
public struct FakeCameraSpec: Sendable, Equatable {
    public var pixelFormat: PixelFormat
    public var width: Int
    public var height: Int
    public var fps: Int
    /// What `V4L2_CID_CAMERA_ORIENTATION` reports; nil for a camera without it (a USB webcam,
    /// which counts as external). A back camera also has a torch (`V4L2_CID_FLASH_LED_MODE`).
    public var position: CameraPosition?
    /// MJPEG frames delivered corrupt from the start (`corrupt=N`), `Int.max` for all of them
    /// (`corrupt`): what a failing camera sends.
    public var corruptFrames = 0

    /// Cameras one fake system holds at most.
    public static let maximumCount = 8

    public init(pixelFormat: PixelFormat = .yuyv, width: Int = 640, height: Int = 480, fps: Int = 30, position: CameraPosition? = nil) {
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
        self.fps = fps
        self.position = position
    }

    /// Parses a comma-separated list of cameras; nil is one default camera.
    public static func list(parsing text: String?) throws(FakeCameraSpecError) -> [FakeCameraSpec] {
        guard let text else { return [FakeCameraSpec()] }
        let items = text.split(separator: ",", omittingEmptySubsequences: false)
        guard items.count <= maximumCount else {
            throw FakeCameraSpecError(spec: text, problem: "lists \(items.count) cameras; a fake system holds at most \(maximumCount)")
        }
        var specs: [FakeCameraSpec] = []
        for item in items { specs.append(try FakeCameraSpec(parsing: String(item))) }
        return specs
    }

    /// Parses `[POSITION=]FOURCC[:WxH[@FPS]][:corrupt[=N]]`; the size defaults to 640x480 and the
    /// rate to 30.
    public init(parsing spec: String) throws(FakeCameraSpecError) {
        self.init()
        var rest = Substring(spec)
        // A position comes before the format: an `=` after the first `:` belongs to `corrupt=N`.
        if let equals = rest.firstIndex(of: "="), rest.firstIndex(of: ":").map({ equals < $0 }) ?? true {
            guard let position = CameraPosition(rawValue: String(rest[..<equals])) else {
                let known = CameraPosition.allCases.map(\.rawValue).joined(separator: ", ")
                throw FakeCameraSpecError(spec: spec, problem: "names a position that is not one of \(known)")
            }
            self.position = position
            rest = rest[rest.index(after: equals)...]
        }
        var parts = rest.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        if parts.count == 3, let count = Self.corruptCount(parts[2]) {
            corruptFrames = count
            parts.removeLast()
        }
        guard (1...2).contains(parts.count), parts[0].utf8.count == 4 else {
            throw FakeCameraSpecError(spec: spec, problem: "is not of the form FOURCC[:WxH[@FPS]][:corrupt[=N]]")
        }
        // First character in the low byte, as V4L2 stores fourccs.
        let code = parts[0].utf8.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
        guard let format = PixelFormat(fourcc: code) else {
            let known = PixelFormat.allCases.map { FourCC.string($0.fourcc) }.joined(separator: ", ")
            throw FakeCameraSpecError(spec: spec, problem: "names no pixel format camrtp converts (one of \(known))")
        }
        pixelFormat = format
        if parts.count == 2 {
            let sizeAndRate = parts[1].split(separator: "@", omittingEmptySubsequences: false).map(String.init)
            let dimensions = sizeAndRate[0].split(separator: "x", omittingEmptySubsequences: false).compactMap { Int($0) }
            guard sizeAndRate.count <= 2, dimensions.count == 2 else {
                throw FakeCameraSpecError(spec: spec, problem: "has a size that is not WxH")
            }
            width = dimensions[0]
            height = dimensions[1]
            if sizeAndRate.count == 2 {
                guard let rate = Int(sizeAndRate[1]) else {
                    throw FakeCameraSpecError(spec: spec, problem: "has a rate that is not a whole number")
                }
                fps = rate
            }
        }
        guard (16...3840).contains(width), (16...2160).contains(height), width % 2 == 0, height % 2 == 0 else {
            throw FakeCameraSpecError(spec: spec, problem: "has a size outside 16x16...3840x2160 or not even")
        }
        guard (1...120).contains(fps) else {
            throw FakeCameraSpecError(spec: spec, problem: "has a rate outside 1...120 fps")
        }
        let fixtureSize = FakeFrameSize(width, height)
        guard format != .mjpeg || FakeMJPEGFrames.sizes.contains(fixtureSize) else {
            let sizes = FakeMJPEGFrames.sizes.map(\.description).joined(separator: ", ")
            throw FakeCameraSpecError(spec: spec, problem: "asks for MJPEG at \(fixtureSize); fake MJPEG frames exist at \(sizes)")
        }
        guard format != .mjpeg || !FakeMJPEGFrames.frames(at: fixtureSize).isEmpty else {
            throw FakeCameraSpecError(
                spec: spec, problem: "needs the MJPEG fixtures in camrtp_FakeV4L2.resources beside the camrtp binary; copy that folder from .build")
        }
        guard corruptFrames == 0 || format == .mjpeg else {
            throw FakeCameraSpecError(spec: spec, problem: "asks for corrupt frames, which only MJPEG can have")
        }
    }

    /// `corrupt` (every frame) or `corrupt=N` (the first N), or nil for anything else.
    private static func corruptCount(_ text: String) -> Int? {
        if text == "corrupt" { return .max }
        guard text.hasPrefix("corrupt="), let count = Int(text.dropFirst("corrupt=".count)), count > 0 else { return nil }
        return count
    }

    /// A device at `path` offering exactly this format, size and rate.
    public func configuration(path: String = "/dev/video0") -> FakeV4L2Configuration {
        var controls = FakeControl.webcamControls
        if let position { controls.append(FakeControl.orientation(position)) }
        if position == .back { controls.append(FakeControl.flashLEDMode) }
        return FakeV4L2Configuration(
            path: path, card: position.map { "camrtp fake \($0.rawValue) camera" } ?? "camrtp fake camera",
            formats: [FakeFormat(pixelFormat, sizes: .discrete([FakeFrameSize(width, height)]), frameRates: .discrete([fps]))],
            controls: controls)
    }
}

/// A ready-to-start capturer over fake cameras: the real V4L2 capture code, no hardware.
public struct FakeCamera: Sendable {
    public let capturer: CameraVideoCapturer
    public let system: FakeV4L2System
    /// Every fake camera, in node order: `/dev/video0`, `/dev/video1`, …
    public let devices: [CameraDevice]
    /// The first camera, which a stream starts on, with the format and rate picked for it.
    public let device: CameraDevice
    public let format: CameraFormat
    public let fps: Double

    /// Builds the fake camera `spec` describes, discovers it and picks its format as an
    /// application would.
    public init(
        spec: FakeCameraSpec, options: CameraCaptureOptions = CameraCaptureOptions(),
        logger: Logger = Logger(label: "camrtp.camera")
    ) throws {
        try self.init(specs: [spec], options: options, logger: logger)
    }

    /// Builds one fake system with a camera per spec, at `/dev/video0` onwards, discovers them
    /// and picks the first one's format as an application would.
    public init(
        specs: [FakeCameraSpec], options: CameraCaptureOptions = CameraCaptureOptions(),
        logger: Logger = Logger(label: "camrtp.camera")
    ) throws {
        let configurations = specs.enumerated().map { $0.element.configuration(path: "/dev/video\($0.offset)") }
        let fakeDevices = configurations.map(FakeV4L2Device.init)
        for (fakeDevice, spec) in zip(fakeDevices, specs) where spec.corruptFrames > 0 {
            fakeDevice.corruptNextFrames(count: spec.corruptFrames)
        }
        system = FakeV4L2System(devices: fakeDevices)
        capturer = CameraVideoCapturer(backend: system, options: options, logger: logger)
        let discovery = capturer.discoverDevices()
        guard let spec = specs.first, let device = discovery.devices.first, discovery.devices.count == specs.count else {
            throw discovery.failures.first ?? V4L2Error(operation: "open", path: configurations.first?.path ?? "/dev/video0", code: ENODEV)
        }
        let formats = try capturer.supportedFormats(for: device)
        guard let format = CameraFormatSelection.closestFormat(
            in: formats, width: spec.width, height: spec.height, frameRate: Double(spec.fps)) else {
            throw CameraCaptureError.unsupportedPixelFormat(path: device.path, fourcc: FourCC.string(spec.pixelFormat.fourcc))
        }
        devices = discovery.devices
        self.device = device
        self.format = format
        fps = CameraFormatSelection.frameRate(for: format, limit: Double(spec.fps))
    }
}
