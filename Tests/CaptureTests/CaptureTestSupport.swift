import FakeV4L2
import Capture
import Foundation
import MediaCore
import Synchronization
import TestSupport

/// Records every delegate call and lets a test wait, with a bound, for a condition on them.
final class RecordingDelegate: VideoCapturerDelegate {
    struct Record {
        /// The first few frames, kept whole; later ones only leave their metadata, so that the
        /// recorder does not starve the capturer's buffer pool.
        var frames: [VideoFrame] = []
        var timestamps: [Int64] = []
        var rotations: [VideoRotation] = []
        var drops: [(timestampNs: Int64, reason: FrameDropReason)] = []
        var errors: [any Error] = []
        var frameCountTotal = 0
    }

    private let record = Mutex(Record())
    /// Frames beyond this many are counted but not kept, so long runs hold no pictures.
    let keepFrames: Int

    init(keepFrames: Int = 3) {
        self.keepFrames = keepFrames
    }

    var snapshot: Record { record.withLock { $0 } }

    func capturer(_ capturer: any VideoCapturer, didCapture frame: VideoFrame) {
        record.withLock { record in
            record.frameCountTotal += 1
            record.timestamps.append(frame.timestampNs)
            record.rotations.append(frame.rotation)
            if record.frames.count < keepFrames { record.frames.append(frame) }
        }
    }

    func capturer(_ capturer: any VideoCapturer, didDropFrame timestampNs: Int64, reason: FrameDropReason) {
        record.withLock { $0.drops.append((timestampNs, reason)) }
    }

    func capturer(_ capturer: any VideoCapturer, didFail error: any Error) {
        record.withLock { $0.errors.append(error) }
    }

    /// Polls `condition` every 10 ms for up to `seconds`; returns whether it came true.
    func wait(seconds: Double = TestPatience.seconds, until condition: (Record) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition(snapshot) { return true }
            usleep(10_000)
        }
        return condition(snapshot)
    }
}

struct TimedOut: Error {}

/// Starts capture and waits up to 5 s for the completion; returns its error, if any.
func start(
    _ capturer: CameraVideoCapturer, device: CameraDevice, format: CameraFormat, fps: Double
) throws -> (any Error)? {
    let done = DispatchSemaphore(value: 0)
    let outcome = Mutex<(any Error)?>(nil)
    capturer.startCapture(device: device, format: format, fps: fps) { error in
        outcome.withLock { $0 = error }
        done.signal()
    }
    guard done.wait(timeout: .now() + 5) == .success else { throw TimedOut() }
    return outcome.withLock { $0 }
}

/// A capturer over `system` with short timeouts for tests, and the delegate recording it.
func makeCapturer(
    _ system: FakeV4L2System, options: CameraCaptureOptions = CameraCaptureOptions(stallTimeoutMs: 300, pollIntervalMs: 20)
) -> (CameraVideoCapturer, RecordingDelegate) {
    let capturer = CameraVideoCapturer(backend: system, options: options)
    let delegate = RecordingDelegate()
    capturer.delegate = delegate
    return (capturer, delegate)
}
