import MediaCore

/// The frames waiting for one viewer's sink: bounded, so a viewer whose sink falls behind loses
/// its own frames (and resynchronises on a keyframe) instead of holding back the encoder thread.
struct ViewerQueue: Sendable {
    let capacity: Int
    private(set) var frames: [EncodedFrame] = []
    /// The viewer decodes nothing until a keyframe: on joining, and after frames were thrown away.
    private(set) var waitingForKeyframe = true
    private(set) var closed = false

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    enum Offer: Equatable {
        case queued
        /// Not a keyframe while the viewer waits for one.
        case skipped
        /// The queue was full: it was emptied and the viewer now waits for a keyframe.
        case overflowed(dropped: Int)
        case closed
    }

    mutating func offer(_ frame: EncodedFrame) -> Offer {
        guard !closed else { return .closed }
        if waitingForKeyframe {
            guard frame.isKeyframe else { return .skipped }
            waitingForKeyframe = false
        }
        guard frames.count < capacity else {
            let dropped = frames.count + 1
            frames.removeAll(keepingCapacity: true)
            // A keyframe that does not fit is lost with the rest, so wait for the next one.
            waitingForKeyframe = true
            return .overflowed(dropped: dropped)
        }
        frames.append(frame)
        return .queued
    }

    /// Everything queued, in order, leaving the queue empty.
    mutating func takeAll() -> [EncodedFrame] {
        defer { frames.removeAll(keepingCapacity: true) }
        return frames
    }

    mutating func close() {
        closed = true
    }
}
