import ImageEncoding

/// Why a snapshot could not be taken.
public enum SnapshotError: Error, CustomStringConvertible, Sendable {
    /// The capturer stopped on this error before a frame came.
    case sourceFailed(any Error)
    /// A finite source (a file) delivered its last frame before the one asked for.
    case sourceFinished
    /// The pipeline stopped, or had stopped, before a frame came.
    case pipelineStopped
    /// The waiting task was cancelled.
    case cancelled
    /// A negative count of frames to let pass.
    case invalidSkipCount(Int)
    /// Turning the copy upright failed.
    case rotationFailed(String)
    case encodingFailed(ImageEncodingError)

    public var description: String {
        switch self {
        case .sourceFailed(let error): "SnapshotError: the source failed before a frame came: \(error)"
        case .sourceFinished: "SnapshotError: the source ended before the frame to take"
        case .pipelineStopped: "SnapshotError: the pipeline stopped before a frame came"
        case .cancelled: "SnapshotError: cancelled while waiting for a frame"
        case .invalidSkipCount(let count): "SnapshotError: cannot let \(count) frames pass; give 0 or more"
        case .rotationFailed(let detail): "SnapshotError: could not turn the frame upright: \(detail)"
        case .encodingFailed(let error): "SnapshotError: \(error)"
        }
    }
}
