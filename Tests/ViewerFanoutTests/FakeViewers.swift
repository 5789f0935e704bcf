import MediaCore
@testable import ViewerFanout

/// A viewer's sink that records what it gets; it can be held inside `consume` (a stuck network)
/// or fail there (a viewer gone).
final class RecordingViewerSink: EncodedFrameSink, @unchecked Sendable {
    struct Failure: Error {}

    private let condition = ThreadCondition()
    private var frames: [EncodedFrame] = []
    private var attachedControl: (any EncoderControl)?
    private var reporter: SinkReporter?
    private var held = false
    private var insideConsume = false
    private var finishedCount = 0
    private let failAfter: Int?

    init(failAfter: Int? = nil) {
        self.failAfter = failAfter
    }

    func attach(encoder: any EncoderControl, reporter: SinkReporter) {
        condition.withLock {
            attachedControl = encoder
            self.reporter = reporter
            condition.broadcast()
        }
    }

    func consume(_ frame: EncodedFrame) throws {
        condition.lock()
        defer { condition.unlock() }
        if let failAfter, frames.count >= failAfter { throw Failure() }
        insideConsume = true
        condition.broadcast()
        while held { condition.wait() }
        insideConsume = false
        frames.append(frame)
        condition.broadcast()
        reporter?.report(.frameDelivered(timestampNs: frame.timestampNs, packets: 2, bytes: frame.data.count, deliveredNs: frame.timestampNs))
    }

    func finish() throws {
        condition.withLock {
            finishedCount += 1
            condition.broadcast()
        }
    }

    /// Holds the next `consume` until `release`.
    func hold() { condition.withLock { held = true } }

    func release() {
        condition.withLock {
            held = false
            condition.broadcast()
        }
    }

    var received: [EncodedFrame] { condition.withLock { frames } }
    var finishCalls: Int { condition.withLock { finishedCount } }
    var control: (any EncoderControl)? { condition.withLock { attachedControl } }

    func waitForFrames(_ count: Int) {
        condition.withLock { while frames.count < count { condition.wait() } }
    }

    func waitUntilInsideConsume() {
        condition.withLock { while !insideConsume { condition.wait() } }
    }

    func waitUntilAttached() {
        condition.withLock { while attachedControl == nil { condition.wait() } }
    }

    func waitUntilFinished() {
        condition.withLock { while finishedCount == 0 { condition.wait() } }
    }
}

/// The encoder as the fan-out steers it.
final class RecordingEncoderControl: EncoderControl, @unchecked Sendable {
    private let condition = ThreadCondition()
    private var keyframes = 0
    private var targets: [Int] = []
    private var congestion: [Bool] = []

    func requestKeyframe() {
        condition.withLock {
            keyframes += 1
            condition.broadcast()
        }
    }

    func requestKeyframe(encodingIndex: Int) { requestKeyframe() }
    func setTargetBitrate(kbps: Int) { condition.withLock { targets.append(kbps) } }
    func setNetworkCongested(_ congested: Bool) { condition.withLock { congestion.append(congested) } }

    var keyframeRequests: Int { condition.withLock { keyframes } }
    var lastTarget: Int? { condition.withLock { targets.last } }
    var lastCongested: Bool? { condition.withLock { congestion.last } }

    func waitForKeyframeRequests(_ count: Int) {
        condition.withLock { while keyframes < count { condition.wait() } }
    }
}

/// A clock the test moves.
final class ManualClock: @unchecked Sendable {
    private let condition = ThreadCondition()
    private var value: Int64 = 1_000_000_000

    var nowNs: Int64 { condition.withLock { value } }
    func advance(ms: Int64) { condition.withLock { value += ms * 1_000_000 } }
}

func frame(_ index: Int, key: Bool) -> EncodedFrame {
    EncodedFrame(
        data: [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: 100 + index), width: 320, height: 240,
        timestampNs: Int64(index) * 33_333_333, rotation: .deg0, isKeyframe: key, isDroppable: false)
}
