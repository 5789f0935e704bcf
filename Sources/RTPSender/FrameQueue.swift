import DequeModule
import MediaCore
import Synchronization
import Transport

/// Encoded frames from the encoder thread to the send thread, which it wakes. It holds a handful
/// at most: the send loop takes every frame as soon as it wakes.
final class FrameQueue: Sendable {
    private struct State {
        var frames = Deque<EncodedFrame>()
        var closed = false
        var failure: (any Error)?
    }

    private let state = Mutex(State())
    private let waker: EventLoop.Waker

    init(waker: EventLoop.Waker) {
        self.waker = waker
    }

    func push(_ frame: EncodedFrame) {
        state.withLock { $0.frames.append(frame) }
        waker.wake()
    }

    /// The next frame, if one is waiting.
    func pop() -> EncodedFrame? {
        state.withLock { $0.frames.popFirst() }
    }

    /// No more frames will come; the send loop finishes what it holds and ends.
    func close() {
        state.withLock { $0.closed = true }
        waker.wake()
    }

    /// Closed and emptied.
    var isFinished: Bool {
        state.withLock { $0.closed && $0.frames.isEmpty }
    }

    /// Records the error that stopped the send loop (the first one).
    func fail(_ error: any Error) {
        state.withLock { if $0.failure == nil { $0.failure = error } }
    }

    var failure: (any Error)? {
        state.withLock { $0.failure }
    }
}
