import MediaCore
import Synchronization

/// The picture-making half of a camera-free source. The loop calls it from its capture thread
/// only, one call at a time.
protocol FrameProducer: AnyObject, Sendable {
    var width: Int { get }
    var height: Int { get }
    /// Fills `buffer` with the next picture; returns false when the source has no more.
    func produceFrame(into buffer: I420Buffer) throws -> Bool
}

/// Runs a `FrameProducer` on a capture thread and delivers its pictures to the delegate, one per
/// frame interval (`.realtime`, stamped with the capture time) or as fast as the delegate returns
/// (`.fast`, stamped with the media time). Pictures come from a pool, so steady capture
/// allocates nothing.
final class PacedCaptureLoop: Sendable {
    private let stopRequested = Atomic<Bool>(false)
    private let thread = Mutex<MediaThread?>(nil)

    /// Starts capture; a loop that is already running is left as it is.
    func start(
        name: String, capturer: any VideoCapturer, delegate: WeakDelegate, producer: any FrameProducer,
        frameIntervalNs: Int64, pace: CapturePace, rotation: VideoRotation
    ) {
        thread.withLock { thread in
            guard thread == nil else { return }
            stopRequested.store(false, ordering: .relaxed)
            thread = MediaThread(name: name) {
                self.run(
                    capturer: capturer, delegate: delegate, producer: producer, frameIntervalNs: frameIntervalNs,
                    pace: pace, rotation: rotation)
            }
        }
    }

    /// Stops the loop and waits for its thread, so no delegate call follows.
    func stop() {
        stopRequested.store(true, ordering: .relaxed)
        let running = thread.withLock { thread in
            defer { thread = nil }
            return thread
        }
        running?.join()
    }

    private func run(
        capturer: any VideoCapturer, delegate: WeakDelegate, producer: any FrameProducer,
        frameIntervalNs: Int64, pace: CapturePace, rotation: VideoRotation
    ) {
        let pool = I420BufferPool(capacity: 4)
        var deadlineNs = MonotonicClock.nowNs()
        var firstTimestampNs: Int64?
        var delivered = 0
        while !stopRequested.load(ordering: .relaxed) {
            if pace == .realtime {
                MonotonicClock.sleep(untilNs: deadlineNs)
                // After a stall of over a frame the grid restarts instead of bursting to catch up.
                deadlineNs += frameIntervalNs
                let now = MonotonicClock.nowNs()
                if now - deadlineNs > frameIntervalNs { deadlineNs = now }
                if stopRequested.load(ordering: .relaxed) { break }
            }
            guard let buffer = pool.makeBuffer(width: producer.width, height: producer.height) else {
                // In real time a picture missed is a frame dropped; flat out, the consumer sets the pace.
                if pace == .realtime {
                    delegate.value?.capturer(capturer, didDropFrame: MonotonicClock.nowNs(), reason: .poolExhausted)
                } else {
                    MonotonicClock.sleep(untilNs: MonotonicClock.nowNs() + 1_000_000)
                }
                continue
            }
            do {
                guard try producer.produceFrame(into: buffer) else {
                    delegate.value?.capturerDidFinish(capturer)
                    return
                }
            } catch {
                delegate.value?.capturer(capturer, didFail: error)
                return
            }
            // Flat out, frames carry their media time (first capture + n intervals), so that rate
            // control, RTP and file timestamps see the source's real frame rate.
            let now = MonotonicClock.nowNs()
            let timestampNs = pace == .realtime ? now : (firstTimestampNs ?? now) + Int64(delivered) * frameIntervalNs
            firstTimestampNs = firstTimestampNs ?? now
            delivered += 1
            delegate.value?.capturer(capturer, didCapture: VideoFrame(buffer: buffer, rotation: rotation, timestampNs: timestampNs))
        }
    }
}
