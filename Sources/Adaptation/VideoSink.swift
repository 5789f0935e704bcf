import Glibc
import MediaCore
import Synchronization

/// Receives a `VideoSource`'s output on the capture thread, as `rtc::VideoSinkInterface` does.
/// Return quickly: the capturer waits for every sink before it takes the next frame.
public protocol VideoSink: AnyObject, Sendable {
    /// An adapted frame, in capture order.
    func onFrame(_ frame: VideoFrame)
    /// A captured frame that will not come, with the one reason it was dropped: the fps cap,
    /// an empty pool, or a drop the capturer itself reported (timestamp on its clock).
    func onDroppedFrame(timestampNs: Int64, reason: FrameDropReason)
    /// The capturer stopped on an error.
    func didFail(_ error: any Error)
    /// A finite capturer delivered its last frame.
    func capturerDidFinish()
}

extension VideoSink {
    public func onDroppedFrame(timestampNs: Int64, reason: FrameDropReason) {}
    public func didFail(_ error: any Error) {}
    public func capturerDidFinish() {}
}

/// Identifies one `addSink` subscription, for `removeSink`.
public struct SinkToken: Hashable, Sendable {
    fileprivate let id: UInt64
}

/// The subscribed sinks. Calls go out with no list lock held, so a sink may add or remove
/// sinks, itself included, from inside a call.
///
/// Each sink has a recursive lock held for the length of every call to it. `remove` takes
/// that lock once, so it waits for a call in progress on another thread and returns only
/// when no call can follow; from inside the sink's own call (same thread) the lock is
/// re-entered instead of deadlocking, and that call is the last.
final class SinkList: Sendable {
    private final class Entry: @unchecked Sendable {
        let token: SinkToken
        let sink: any VideoSink
        let callLock = RecursiveLock()
        /// Guarded by `callLock`.
        var isRemoved = false

        init(token: SinkToken, sink: any VideoSink) {
            self.token = token
            self.sink = sink
        }
    }

    private struct Entries {
        var nextID: UInt64 = 0
        var list: [Entry] = []
    }

    private let entries = Mutex(Entries())

    func add(_ sink: any VideoSink) -> SinkToken {
        entries.withLock { entries in
            let token = SinkToken(id: entries.nextID)
            entries.nextID += 1
            entries.list.append(Entry(token: token, sink: sink))
            return token
        }
    }

    /// Unsubscribes; when this returns, the sink gets no further call. Unknown or already
    /// removed tokens are ignored.
    func remove(_ token: SinkToken) {
        let removed = entries.withLock { entries -> Entry? in
            guard let index = entries.list.firstIndex(where: { $0.token == token }) else { return nil }
            return entries.list.remove(at: index)
        }
        guard let removed else { return }
        removed.callLock.lock()
        removed.isRemoved = true
        removed.callLock.unlock()
    }

    /// Calls `body` for every subscribed sink, in subscription order.
    func forEach(_ body: (any VideoSink) -> Void) {
        // A copy of the array shares its storage: no allocation per frame.
        let snapshot = entries.withLock { $0.list }
        for entry in snapshot {
            entry.callLock.lock()
            if !entry.isRemoved {
                body(entry.sink)
            }
            entry.callLock.unlock()
        }
    }
}
