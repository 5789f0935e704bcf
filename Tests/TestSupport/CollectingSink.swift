import MediaCore
import Synchronization

/// A sink that keeps every encoded frame, in order, and reports each as delivered; optionally
/// slow, to play a sender that cannot keep up.
public final class CollectingSink: EncodedFrameSink, Sendable {
    private struct State {
        var frames: [EncodedFrame] = []
        var finished = false
        var reporter = SinkReporter.ignoring
        var encoder: (any EncoderControl)?
    }

    private let state = Mutex(State())
    public let delayNs: Int64

    public init(delayNs: Int64 = 0) {
        self.delayNs = delayNs
    }

    public var frames: [EncodedFrame] { state.withLock { $0.frames } }
    public var finished: Bool { state.withLock { $0.finished } }
    /// The encoder controls the pipeline attached, to steer it as a sender would.
    public var encoder: (any EncoderControl)? { state.withLock { $0.encoder } }

    public func attach(encoder: any EncoderControl, reporter: SinkReporter) {
        state.withLock {
            $0.reporter = reporter
            $0.encoder = encoder
        }
    }

    public func consume(_ frame: EncodedFrame) throws {
        if delayNs > 0 { MonotonicClock.sleep(untilNs: MonotonicClock.nowNs() + delayNs) }
        let reporter = state.withLock {
            $0.frames.append(frame)
            return $0.reporter
        }
        reporter.report(.frameDelivered(
            timestampNs: frame.timestampNs, packets: 1, bytes: frame.data.count, deliveredNs: MonotonicClock.nowNs()))
    }

    public func finish() throws {
        state.withLock { $0.finished = true }
    }
}
