import CV4L2
import MediaCore

/// The read-only questions camrtp asks a node: what it is, what it can deliver, and its
/// fixed camera controls.
extension V4L2DeviceHandle {
    /// Sizes a stepwise or continuous frame-size range is offered at: the common camera sizes
    /// that fall in it, as Chromium does, rather than every step.
    static let commonSizes: [(width: Int, height: Int)] = [
        (160, 120), (176, 144), (320, 240), (352, 288), (640, 360), (640, 480), (800, 600), (960, 540),
        (1024, 768), (1280, 720), (1280, 960), (1600, 1200), (1920, 1080), (2560, 1440), (3840, 2160),
    ]

    /// `VIDIOC_QUERYCAP` turned into a `CameraDevice`, or nil when the node is no camera: its
    /// device caps (the node's own, `V4L2_CAP_DEVICE_CAPS`) must include single-planar video
    /// capture and streaming, and must not be a memory-to-memory codec or scaler. Metadata
    /// nodes lack `V4L2_CAP_VIDEO_CAPTURE` and drop out with them.
    func cameraDevice(persistentName: String?) throws(V4L2Error) -> CameraDevice? {
        guard let capability = try cameraCapability() else { return nil }
        let busInfo = CString.decode(capability.bus_info)
        let orientation = try controlValue(CAMRTP_V4L2_CID_CAMERA_ORIENTATION)
        let position: CameraPosition = switch orientation {
        case V4L2_CAMERA_ORIENTATION_FRONT: .front
        case V4L2_CAMERA_ORIENTATION_BACK: .back
        default: .external
        }
        let counterClockwise = try controlValue(CAMRTP_V4L2_CID_CAMERA_SENSOR_ROTATION) ?? 0
        return CameraDevice(
            uniqueID: persistentName ?? (busInfo.isEmpty ? path : busInfo),
            name: CString.decode(capability.card), driver: CString.decode(capability.driver), busInfo: busInfo,
            path: path, position: position,
            sensorRotation: VideoRotation(degrees: -Int(counterClockwise)) ?? .deg0)
    }

    /// `VIDIOC_QUERYCAP`, or nil when the node cannot stream video frames.
    func cameraCapability() throws(V4L2Error) -> v4l2_capability? {
        var capability = v4l2_capability()
        try ioctl(.querycap, &capability)
        let caps = capability.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? capability.device_caps : capability.capabilities
        let required = UInt32(V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING)
        let memoryToMemory = UInt32(V4L2_CAP_VIDEO_M2M | V4L2_CAP_VIDEO_M2M_MPLANE)
        return caps & required == required && caps & memoryToMemory == 0 ? capability : nil
    }

    /// Every convertible pixel format × size with its rates (`VIDIOC_ENUM_FMT`,
    /// `VIDIOC_ENUM_FRAMESIZES`, `VIDIOC_ENUM_FRAMEINTERVALS`), native formats first: libv4l2
    /// lists its emulated ones after the driver's, and they cost a conversion.
    func supportedFormats() throws(V4L2Error) -> [CameraFormat] {
        var formats: [CameraFormat] = []
        var description = v4l2_fmtdesc()
        description.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        while try query(.enumFormat, &description) {
            defer { description.index += 1 }
            guard let pixelFormat = PixelFormat(fourcc: description.pixelformat) else { continue }
            let isEmulated = description.flags & UInt32(V4L2_FMT_FLAG_EMULATED) != 0
            for size in try frameSizes(fourcc: description.pixelformat) {
                formats.append(CameraFormat(
                    pixelFormat: pixelFormat, width: size.width, height: size.height,
                    frameRateRanges: try frameRates(fourcc: description.pixelformat, width: size.width, height: size.height),
                    isEmulated: isEmulated))
            }
        }
        return formats.enumerated().sorted { lhs, rhs in
            lhs.element.isEmulated != rhs.element.isEmulated ? !lhs.element.isEmulated : lhs.offset < rhs.offset
        }.map(\.element)
    }

    private func frameSizes(fourcc: UInt32) throws(V4L2Error) -> [(width: Int, height: Int)] {
        var sizes: [(width: Int, height: Int)] = []
        var entry = v4l2_frmsizeenum()
        entry.pixel_format = fourcc
        while try query(.enumFrameSizes, &entry) {
            defer { entry.index += 1 }
            if entry.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
                sizes.append((Int(entry.discrete.width), Int(entry.discrete.height)))
                continue
            }
            // Stepwise and continuous (a stepwise range with steps of 1) end the enumeration.
            let range = entry.stepwise
            let stepWidth = max(1, Int(range.step_width)), stepHeight = max(1, Int(range.step_height))
            let inRange = Self.commonSizes.filter { size in
                (Int(range.min_width)...Int(range.max_width)).contains(size.width)
                    && (Int(range.min_height)...Int(range.max_height)).contains(size.height)
                    && (size.width - Int(range.min_width)) % stepWidth == 0
                    && (size.height - Int(range.min_height)) % stepHeight == 0
            }
            return inRange.isEmpty ? [(Int(range.max_width), Int(range.max_height))] : inRange
        }
        return sizes
    }

    private func frameRates(fourcc: UInt32, width: Int, height: Int) throws(V4L2Error) -> [FrameRateRange] {
        var ranges: [FrameRateRange] = []
        var entry = v4l2_frmivalenum()
        entry.pixel_format = fourcc
        entry.width = UInt32(width)
        entry.height = UInt32(height)
        while try query(.enumFrameIntervals, &entry) {
            defer { entry.index += 1 }
            if entry.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue {
                guard let fps = Self.fps(of: entry.discrete) else { continue }
                ranges.append(FrameRateRange(minFPS: fps, maxFPS: fps))
                continue
            }
            // A frame interval is seconds per frame: the longest interval is the lowest rate.
            guard let maxFPS = Self.fps(of: entry.stepwise.min), let minFPS = Self.fps(of: entry.stepwise.max) else { break }
            return [FrameRateRange(minFPS: minFPS, maxFPS: maxFPS)]
        }
        return ranges.sorted { $0.maxFPS > $1.maxFPS }
    }

    /// The rate of a `v4l2_fract` frame interval, or nil for a degenerate one.
    static func fps(of interval: v4l2_fract) -> Double? {
        guard interval.numerator > 0, interval.denominator > 0 else { return nil }
        return Double(interval.denominator) / Double(interval.numerator)
    }

    /// The current value of a control, or nil when the driver lacks it.
    func controlValue(_ id: UInt32) throws(V4L2Error) -> Int32? {
        var control = v4l2_control(id: id, value: 0)
        return try query(.getControl, &control) ? control.value : nil
    }
}

/// The fixed-size `char` arrays V4L2 structs carry, decoded as NUL-terminated UTF-8.
package enum CString {
    package static func decode<Tuple>(_ tuple: Tuple) -> String {
        withUnsafeBytes(of: tuple) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// Writes `text` into a fixed-size array, truncated to leave room for the NUL.
    package static func encode<Tuple>(_ text: String, into tuple: inout Tuple) {
        withUnsafeMutableBytes(of: &tuple) { raw in
            raw.initializeMemory(as: UInt8.self, repeating: 0)
            for (index, byte) in text.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
    }
}
