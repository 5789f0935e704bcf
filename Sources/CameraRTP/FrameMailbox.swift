import MediaCore

/// The one-slot handoff from the capture thread to the encoder thread.
///
/// In real time the newest frame wins: `put` replaces a frame the encoder has not taken yet and
/// returns it to be counted as dropped `late`, so a slow encoder never builds a queue and latency
/// stays bounded. Flat out (`lossless`), `put` waits for the slot instead, so a file is encoded
/// whole at whatever speed the encoder manages.
final class FrameMailbox: @unchecked Sendable {
    private let condition = ThreadCondition()
    private var slot: VideoFrame?
    private var closed = false
    private let lossless: Bool

    init(lossless: Bool) {
        self.lossless = lossless
    }

    enum PutResult {
        case accepted
        /// Accepted in place of an unconsumed frame, which is now dropped.
        case replaced(VideoFrame)
        /// The mailbox is closed; the frame will never be taken.
        case closed
    }

    func put(_ frame: VideoFrame) -> PutResult {
        condition.lock()
        defer { condition.unlock() }
        if lossless {
            while slot != nil && !closed { condition.wait() }
        }
        guard !closed else { return .closed }
        let replaced = slot
        slot = frame
        condition.broadcast()
        return replaced.map { .replaced($0) } ?? .accepted
    }

    /// Waits for a frame; nil once the mailbox is closed and empty.
    func take() -> VideoFrame? {
        condition.lock()
        defer { condition.unlock() }
        while slot == nil && !closed { condition.wait() }
        let frame = slot
        slot = nil
        condition.broadcast()
        return frame
    }

    /// Lets the encoder drain what is in the slot and then stop.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
