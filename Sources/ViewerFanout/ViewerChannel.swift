import MediaCore

/// One viewer's way to its sink: a bounded queue and a thread of its own that attaches the sink,
/// feeds it in order and finishes it. The encoder thread only ever appends under a short lock, so
/// a sink that blocks or fails holds up nobody but itself.
final class ViewerChannel: @unchecked Sendable {
    let id: Int
    let sink: any EncodedFrameSink
    private let condition = ThreadCondition()
    private var queue: ViewerQueue
    /// Frames were thrown away: ask for a keyframe once this viewer has caught up, not before, so a
    /// stuck viewer does not force keyframes on everyone.
    private var resyncPending = false
    private var ended = false

    init(id: Int, sink: any EncodedFrameSink, capacity: Int) {
        self.id = id
        self.sink = sink
        queue = ViewerQueue(capacity: capacity)
    }

    /// Starts the viewer's thread. `ended` runs on it last, with the error that ended the sink
    /// (nil when it was closed).
    func start(
        control: any EncoderControl, reporter: SinkReporter,
        requestResync: @escaping @Sendable () -> Void,
        ended: @escaping @Sendable ((any Error)?) -> Void
    ) {
        // Detached: a viewer leaves while the stream goes on, and nobody would join it then.
        _ = MediaThread(name: "camrtp.viewer", joinable: false) { [self] in
            sink.attach(encoder: control, reporter: reporter)
            var failure: (any Error)?
            while let batch = nextBatch(requestResync: requestResync) {
                do {
                    for frame in batch { try sink.consume(frame) }
                } catch {
                    failure = error
                    close()
                    break
                }
            }
            do { try sink.finish() } catch { failure = failure ?? error }
            ended(failure)
            condition.withLock {
                self.ended = true
                condition.broadcast()
            }
        }
    }

    /// Waits for frames; nil once closed. What is still queued at close is not sent: the viewer
    /// is leaving.
    private func nextBatch(requestResync: @Sendable () -> Void) -> [EncodedFrame]? {
        condition.lock()
        while queue.frames.isEmpty && !queue.closed {
            if resyncPending {
                resyncPending = false
                condition.unlock()
                requestResync()
                condition.lock()
                continue
            }
            condition.wait()
        }
        defer { condition.unlock() }
        if queue.closed { return nil }
        return queue.takeAll()
    }

    func offer(_ frame: EncodedFrame) -> ViewerQueue.Offer {
        condition.withLock {
            let result = queue.offer(frame)
            switch result {
            case .queued: condition.signal()
            case .overflowed:
                resyncPending = true
                condition.signal()
            case .skipped, .closed: break
            }
            return result
        }
    }

    /// Ends the viewer: its thread finishes the sink and exits.
    func close() {
        condition.withLock {
            queue.close()
            condition.signal()
        }
    }

    /// Waits for the thread to have finished the sink (after `close`).
    func waitUntilEnded() {
        condition.withLock {
            while !ended { condition.wait() }
        }
    }
}
