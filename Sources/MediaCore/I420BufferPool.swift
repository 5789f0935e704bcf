import Synchronization

/// Recycles `I420Buffer`s so that steady streaming allocates no picture per frame, as WebRTC's
/// `I420BufferPool` does: a buffer is free again once nobody but the pool holds it.
public final class I420BufferPool: Sendable {
    private struct State {
        var buffers: [I420Buffer] = []
        var allocations = 0
    }

    private let state = Mutex(State())
    /// At most this many buffers exist at once; past that `makeBuffer` returns nil.
    public let capacity: Int

    public init(capacity: Int = 8) {
        self.capacity = capacity
    }

    /// How many buffers the pool has allocated in its lifetime.
    public var allocationCount: Int { state.withLock { $0.allocations } }

    /// A buffer of the given size that no one else holds, or nil when `capacity` are in use.
    /// A change of size frees the pooled buffers of the old size.
    public func makeBuffer(width: Int, height: Int) -> I420Buffer? {
        state.withLock { state in
            if let first = state.buffers.first, first.width != width || first.height != height {
                state.buffers.removeAll()
            }
            for index in state.buffers.indices where isKnownUniquelyReferenced(&state.buffers[index]) {
                return state.buffers[index]
            }
            guard state.buffers.count < capacity else { return nil }
            let buffer = I420Buffer(width: width, height: height)
            state.buffers.append(buffer)
            state.allocations += 1
            return buffer
        }
    }
}
