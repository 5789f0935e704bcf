import Glibc
import SystemPackage

/// A V4L2 call that failed, with the operation, the device and the errno it failed with:
/// `V4L2Error: VIDIOC_S_FMT on /dev/video0 failed: Invalid argument (errno 22)`.
public struct V4L2Error: Error, CustomStringConvertible, Sendable, Equatable {
    /// The call: `open`, `mmap`, `poll` or an ioctl name such as `VIDIOC_DQBUF`.
    public let operation: String
    public let path: String
    public let code: Int32

    public init(operation: String, path: String, code: Int32) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    /// The device is gone: unplugged while open (`ENODEV`), or its node vanished (`ENOENT`, `ENXIO`).
    public var isDeviceGone: Bool { code == ENODEV || code == ENXIO || code == ENOENT }

    public var description: String {
        var text = "V4L2Error: \(operation) on \(path) failed: \(Errno(rawValue: code).description) (errno \(code))"
        switch code {
        case EACCES, EPERM:
            text += ". Cameras belong to the `video` group: add the user with `sudo usermod -aG video $USER`, then log out and in again."
        case ENODEV:
            text += ". The camera was unplugged."
        case EBUSY:
            text += ". Another program is using the camera."
        default:
            break
        }
        return text
    }
}

/// A failure of the capture session itself rather than of one V4L2 call.
public enum CameraCaptureError: Error, CustomStringConvertible, Sendable, Equatable {
    /// No frame came for this long, even after restarting the stream once.
    case stalled(path: String, timeoutMs: Int)
    /// The node cannot stream video frames (no `V4L2_CAP_VIDEO_CAPTURE` + `V4L2_CAP_STREAMING`).
    case notACamera(path: String)
    /// The driver switched to a pixel format camrtp cannot convert.
    case unsupportedPixelFormat(path: String, fourcc: String)
    /// `stopCapture` came before the start finished.
    case stoppedBeforeStart(path: String)
    /// A frame rate that is not a positive number up to 1000.
    case invalidFrameRate(Double)
    /// Frames came, but none of the first `count` (over `seconds`) could be decoded.
    case noDecodableFrames(path: String, format: String, count: Int, seconds: Double)
    /// A camera switch needs a capture that runs.
    case notCapturing

    public var description: String {
        switch self {
        case .stalled(let path, let timeoutMs):
            "CameraCaptureError: \(path) delivered no frame for \(timeoutMs) ms, also after restarting the stream"
        case .notACamera(let path):
            "CameraCaptureError: \(path) is not a streaming video capture device"
        case .unsupportedPixelFormat(let path, let fourcc):
            "CameraCaptureError: \(path) delivers \(fourcc), which camrtp cannot convert"
        case .stoppedBeforeStart(let path):
            "CameraCaptureError: capture on \(path) was stopped before it started"
        case .invalidFrameRate(let fps):
            "CameraCaptureError: \(fps) fps is not a frame rate; use a positive number up to 1000"
        case .noDecodableFrames(let path, let format, let count, let seconds):
            "CameraCaptureError: \(path) sent \(count) \(format) frames in \(Int(seconds.rounded())) s and none could be decoded; the camera or its cable is sending corrupt data: reconnect it, or try another camera"
        case .notCapturing:
            "CameraCaptureError: no capture is running to switch from; start one first"
        }
    }
}
