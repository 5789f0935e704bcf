import CV4L2
import Glibc
import MediaCore

/// A device configured for streaming: the format and rate it agreed to, its mapped buffers,
/// and the queue discipline around them (V4L2 uAPI "Streaming I/O (Memory Mapping)"). It holds
/// the device from `init` (its buffers claim the queue) but streams only after `start()`, so a
/// camera switch can prepare the next camera while the current one still delivers. Dropping it
/// stops the stream, unmaps the buffers and closes the node.
final class V4L2Stream {
    let handle: V4L2DeviceHandle
    /// What the driver delivers, which may differ from what was asked (`VIDIOC_S_FMT` adjusts
    /// the size to one it supports rather than failing).
    let pixelFormat: PixelFormat
    let width: Int
    let height: Int
    /// Pixels per row including padding, from `bytesperline`.
    let rowPixels: Int
    /// The rate the driver reports after `VIDIOC_S_PARM`, or nil when it cannot set one
    /// (no `V4L2_CAP_TIMEPERFRAME`).
    let frameRate: Double?
    /// A buffer with fewer bytes than this cannot hold a frame. MJPEG frames vary in size; the
    /// floor is the JPEG start and end markers.
    let minimumFrameBytes: Int
    private var isStreaming = false

    init(path: String, backend: any V4L2Backend, format: CameraFormat, fps: Double, bufferCount: Int) throws {
        guard fps > 0, fps <= 1000 else { throw CameraCaptureError.invalidFrameRate(fps) }
        handle = try V4L2DeviceHandle(path: path, backend: backend)
        guard try handle.cameraCapability() != nil else { throw CameraCaptureError.notACamera(path: path) }
        var negotiated = v4l2_format()
        negotiated.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        negotiated.fmt.pix.width = UInt32(format.width)
        negotiated.fmt.pix.height = UInt32(format.height)
        negotiated.fmt.pix.pixelformat = format.pixelFormat.fourcc
        negotiated.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        try handle.ioctl(.setFormat, &negotiated)
        let pix = negotiated.fmt.pix
        guard let delivered = PixelFormat(fourcc: pix.pixelformat) else {
            throw CameraCaptureError.unsupportedPixelFormat(path: path, fourcc: FourCC.string(pix.pixelformat))
        }
        pixelFormat = delivered
        width = Int(pix.width)
        height = Int(pix.height)
        rowPixels = max(width, Int(pix.bytesperline) / max(1, delivered.firstPlaneBytesPerPixel))
        minimumFrameBytes = delivered.frameByteCount(width: rowPixels, height: height) ?? 4

        var parameters = v4l2_streamparm()
        parameters.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        parameters.parm.capture.timeperframe = Self.interval(fps: fps)
        try handle.ioctl(.setParameters, &parameters)
        let capture = parameters.parm.capture
        frameRate = capture.capability & UInt32(V4L2_CAP_TIMEPERFRAME) != 0
            ? V4L2DeviceHandle.fps(of: capture.timeperframe) : nil

        try handle.mapBuffers(count: bufferCount)
    }

    deinit {
        stop()
    }

    /// Queues every buffer and starts streaming.
    func start() throws(V4L2Error) {
        for index in handle.buffers.indices {
            try queue(index: index)
        }
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        try handle.ioctl(.streamOn, &type)
        isStreaming = true
    }

    /// Stops streaming; the driver takes every buffer off its queues. Failures (an unplugged
    /// device) are ignored: the buffers are released with the handle either way.
    func stop() {
        guard isStreaming else { return }
        isStreaming = false
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        try? handle.ioctl(.streamOff, &type)
    }

    /// The next filled buffer, or nil when none is ready (`EAGAIN`).
    func dequeue() throws(V4L2Error) -> v4l2_buffer? {
        var buffer = v4l2_buffer()
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        do {
            try handle.ioctl(.dequeueBuffer, &buffer)
        } catch where error.code == EAGAIN {
            return nil
        }
        guard handle.buffers.indices.contains(Int(buffer.index)) else {
            throw V4L2Error(operation: V4L2Request.dequeueBuffer.name, path: handle.path, code: EINVAL)
        }
        return buffer
    }

    /// Hands buffer `index` back to the driver to fill.
    func queue(index: Int) throws(V4L2Error) {
        var buffer = v4l2_buffer()
        buffer.index = UInt32(index)
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        try handle.ioctl(.queueBuffer, &buffer)
    }

    /// The filled bytes of a dequeued buffer.
    func bytes(of buffer: v4l2_buffer) -> UnsafeRawBufferPointer {
        let mapped = handle.buffers[Int(buffer.index)]
        return UnsafeRawBufferPointer(start: mapped.memory, count: min(Int(buffer.bytesused), mapped.length))
    }

    /// `timeperframe` for a rate: whole rates as 1/fps, others in thousandths (29.97 → 1000/29970).
    static func interval(fps: Double) -> v4l2_fract {
        fps.rounded() == fps ? v4l2_fract(numerator: 1, denominator: UInt32(fps))
            : v4l2_fract(numerator: 1000, denominator: UInt32((fps * 1000).rounded()))
    }
}

extension PixelFormat {
    /// Bytes per pixel in the first plane, which is what `bytesperline` counts; 0 for MJPEG,
    /// which has no rows.
    package var firstPlaneBytesPerPixel: Int {
        switch self {
        case .i420, .nv12, .nv21: 1
        case .yuyv, .uyvy: 2
        case .rgb24: 3
        case .bgra: 4
        case .mjpeg: 0
        }
    }
}
