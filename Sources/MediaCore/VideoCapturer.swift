/// Receives what a capturer produces, on the capturer's own thread, as
/// `RTCVideoCapturerDelegate` does. Return quickly: the capturer waits for each call.
public protocol VideoCapturerDelegate: AnyObject, Sendable {
    /// Called for every frame, in capture order.
    func capturer(_ capturer: any VideoCapturer, didCapture frame: VideoFrame)
    /// Called for a frame that was captured but could not be delivered.
    func capturer(_ capturer: any VideoCapturer, didDropFrame timestampNs: Int64, reason: FrameDropReason)
    /// Called once for an error that stopped capture.
    func capturer(_ capturer: any VideoCapturer, didFail error: any Error)
    /// Called once when a finite source (a file without looping) has delivered its last frame.
    func capturerDidFinish(_ capturer: any VideoCapturer)
}

extension VideoCapturerDelegate {
    public func capturer(_ capturer: any VideoCapturer, didDropFrame timestampNs: Int64, reason: FrameDropReason) {}
    public func capturer(_ capturer: any VideoCapturer, didFail error: any Error) {}
    public func capturerDidFinish(_ capturer: any VideoCapturer) {}
}

/// A source of `VideoFrame`s: a camera, the test pattern or a file. Each starts in its own way
/// and delivers frames to `delegate` from a thread it owns.
public protocol VideoCapturer: AnyObject, Sendable {
    /// Held weakly, as in WebRTC; set it before starting.
    var delegate: (any VideoCapturerDelegate)? { get set }
    /// Stops capture and frees its resources. When this returns, no delegate call is running or
    /// will come. Safe to call more than once, and from the delegate itself.
    func stopCapture()
}

/// How a non-camera source paces its frames.
public enum CapturePace: String, Sendable, CaseIterable, Codable {
    /// One frame per frame interval, as a camera would deliver them.
    case realtime
    /// As fast as the consumer takes them, for benchmarks and file conversion. Frames are stamped
    /// with their media time (the first capture time plus n frame intervals), which runs ahead of
    /// the clock.
    case fast
}
