import MediaCore
import Synchronization

/// A request for the next adapted frame: a one-shot `VideoSink` that lets a number of frames
/// pass, copies the frame after them (the source's pools recycle their pictures, so it must not
/// be held), unsubscribes itself and hands the copy to whoever awaits it. The copy is one bulk
/// `memcpy` on the capture thread; everything slower happens elsewhere. Single use.
package final class NextFrameRequest: VideoSink {
    private struct State {
        var framesToSkip: Int
        /// A frame is being copied; later frames are not wanted.
        var isClaimed = false
        var outcome: Result<VideoFrame, SnapshotError>?
        var continuation: CheckedContinuation<Result<VideoFrame, SnapshotError>, Never>?
        var unsubscribe: (@Sendable () -> Void)?
    }

    private let state: Mutex<State>

    /// - Parameter framesToSkip: adapted frames to let pass first (0 or more).
    package init(skipping framesToSkip: Int = 0) {
        precondition(framesToSkip >= 0, "cannot let \(framesToSkip) frames pass")
        state = Mutex(State(framesToSkip: framesToSkip))
    }

    /// Ends the wait with `error`, unless a frame or another error ended it first.
    package func cancel(with error: SnapshotError) {
        finish(.failure(error))
    }

    // MARK: VideoSink

    package func onFrame(_ frame: VideoFrame) {
        let isWanted = state.withLock { state -> Bool in
            guard state.outcome == nil, !state.isClaimed else { return false }
            guard state.framesToSkip == 0 else {
                state.framesToSkip -= 1
                return false
            }
            state.isClaimed = true
            return true
        }
        guard isWanted else { return }
        let copy = I420Buffer(width: frame.width, height: frame.height)
        copy.bytes.copyMemory(from: UnsafeRawBufferPointer(frame.buffer.bytes))
        finish(.success(VideoFrame(buffer: copy, rotation: frame.rotation, timestampNs: frame.timestampNs)))
    }

    package func didFail(_ error: any Error) {
        finish(.failure(.sourceFailed(error)))
    }

    package func capturerDidFinish() {
        finish(.failure(.sourceFinished))
    }

    // MARK: Waiting

    /// Gives the request its way to unsubscribe, once subscribed; it is called at once when the
    /// request has already ended, else when it ends.
    func subscribed(unsubscribe: @escaping @Sendable () -> Void) {
        let hasEnded = state.withLock { state -> Bool in
            guard state.outcome == nil else { return true }
            state.unsubscribe = unsubscribe
            return false
        }
        if hasEnded { unsubscribe() }
    }

    /// Waits for the frame, or the error that ended the wait.
    func outcome() async -> Result<VideoFrame, SnapshotError> {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Result<VideoFrame, SnapshotError>? in
                if let outcome = state.outcome { return outcome }
                state.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Keeps the first outcome; unsubscribes and wakes the waiter outside the lock.
    private func finish(_ outcome: Result<VideoFrame, SnapshotError>) {
        let (continuation, unsubscribe) = state.withLock { state in
            guard state.outcome == nil else {
                return (CheckedContinuation<Result<VideoFrame, SnapshotError>, Never>?.none, (@Sendable () -> Void)?.none)
            }
            state.outcome = outcome
            defer {
                state.continuation = nil
                state.unsubscribe = nil
            }
            return (state.continuation, state.unsubscribe)
        }
        unsubscribe?()
        continuation?.resume(returning: outcome)
    }
}
