import Capture

/// A run-time change a stream cannot make as asked. Nothing changed when one is thrown.
public enum StreamControlError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The operation is for cameras and the stream's source is a file or the test pattern.
    case notACamera(operation: String, source: String)
    /// The camera has not started yet, or has stopped.
    case notStreaming
    /// No camera fits the selection; `available` lists the cameras there are.
    case noSuchCamera(CameraSelection, available: [String])
    /// A target bitrate outside `StreamPipeline.bitrateRangeKbps`.
    case bitrateOutOfRange(Int)

    public var description: String {
        switch self {
        case .notACamera(let operation, let source):
            "StreamControlError: \(operation) is for cameras; this stream's source is \(source)"
        case .notStreaming:
            "StreamControlError: the camera is not streaming (not started yet, or stopped)"
        case .noSuchCamera(let selection, let available):
            "StreamControlError: there is no camera to switch to for \(selection); the cameras are \(available.joined(separator: ", "))"
        case .bitrateOutOfRange(let kbps):
            "StreamControlError: \(kbps) kbit/s is not a target bitrate; use \(StreamPipeline.bitrateRangeKbps.lowerBound)...\(StreamPipeline.bitrateRangeKbps.upperBound)"
        }
    }
}
