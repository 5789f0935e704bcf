import Metrics
import MediaCore
import StreamMetrics
import Synchronization

/// Counts what happens, where it happens, from any thread; and mirrors every count into
/// swift-metrics, whose backend the application may bootstrap (the default discards them), under
/// Prometheus's conventions: `camrtp_frames_captured_total`, `camrtp_frames_encoded_total`,
/// `camrtp_frames_dropped_total{reason}`, `camrtp_keyframes_encoded_total`, the encode time and
/// the capture-to-wire latency as timers in seconds, `camrtp_sent_*` (`SentTraffic`) and a network
/// sink's figures as `camrtp_*` (`SenderMetrics`).
public final class PipelineStats: Sendable {
    private struct State {
        var framesCaptured = 0
        var framesEncoded = 0
        var dropped: [FrameDropReason: Int] = [:]
        var keyframes = 0
        var packetsSent = 0
        var bytesSent = 0
        var encodeTimes = LatencyHistogram()
        var latencies = LatencyHistogram()
        var sender: SenderStatistics?
        var startNs: Int64?
        var endNs: Int64?
        var sent: SentTraffic
        var network: SenderMetrics
    }

    private let state: Mutex<State>
    private let capturedCounter: Counter
    private let encodedCounter: Counter
    private let keyframeCounter: Counter
    private let dropCounters: [FrameDropReason: Counter]
    private let encodeTimer: Timer
    private let latencyTimer: Timer
    /// False in `--pace fast`, where frames carry media time that runs ahead of the clock, so the
    /// time from "capture" to the wire means nothing.
    public let measuresLatency: Bool

    /// - Parameter metricsDimensions: added to every metric, so that an application running
    ///   several pipelines can tell them apart, such as `[("stream", "lobby-camera")]`.
    public init(measuresLatency: Bool = true, metricsDimensions: [(String, String)] = []) {
        self.measuresLatency = measuresLatency
        capturedCounter = Counter(label: "camrtp_frames_captured_total", dimensions: metricsDimensions)
        encodedCounter = Counter(label: "camrtp_frames_encoded_total", dimensions: metricsDimensions)
        keyframeCounter = Counter(label: "camrtp_keyframes_encoded_total", dimensions: metricsDimensions)
        dropCounters = Dictionary(uniqueKeysWithValues: FrameDropReason.allCases.map {
            ($0, Counter(label: "camrtp_frames_dropped_total", dimensions: metricsDimensions + [("reason", $0.rawValue)]))
        })
        encodeTimer = Timer(label: "camrtp_encode_duration_seconds", dimensions: metricsDimensions)
        latencyTimer = Timer(label: "camrtp_capture_to_wire_latency_seconds", dimensions: metricsDimensions)
        state = Mutex(State(
            sent: SentTraffic(prefix: "camrtp", dimensions: metricsDimensions),
            network: SenderMetrics(prefix: "camrtp", dimensions: metricsDimensions)))
    }

    func markStarted() {
        state.withLock { $0.startNs = $0.startNs ?? MonotonicClock.nowNs() }
    }

    func markStopped() {
        state.withLock { $0.endNs = MonotonicClock.nowNs() }
    }

    func frameCaptured() {
        state.withLock { $0.framesCaptured += 1 }
        capturedCounter.increment()
    }

    func frameDropped(_ reason: FrameDropReason) {
        state.withLock { $0.dropped[reason, default: 0] += 1 }
        dropCounters[reason]?.increment()
    }

    func frameEncoded(isKeyframe: Bool, encodeTimeNs: Int64) {
        state.withLock {
            $0.framesEncoded += 1
            if isKeyframe { $0.keyframes += 1 }
            $0.encodeTimes.record(nanoseconds: encodeTimeNs)
        }
        encodedCounter.increment()
        if isKeyframe { keyframeCounter.increment() }
        encodeTimer.recordNanoseconds(encodeTimeNs)
    }

    /// Records that a frame's encode time elapsed without output (rate control dropped it).
    func encodeTimeOfDroppedFrame(_ encodeTimeNs: Int64) {
        state.withLock { $0.encodeTimes.record(nanoseconds: encodeTimeNs) }
        encodeTimer.recordNanoseconds(encodeTimeNs)
    }

    /// Takes what the sink reports.
    func record(_ event: SinkEvent) {
        switch event {
        case .frameDelivered(let timestampNs, let packets, let bytes, let deliveredNs):
            let latencyNs = deliveredNs - timestampNs
            state.withLock {
                $0.packetsSent += packets
                $0.bytesSent += bytes
                if measuresLatency { $0.latencies.record(nanoseconds: latencyNs) }
                $0.sent.record(packets: packets, bytes: bytes, nowNs: deliveredNs)
            }
            if measuresLatency { latencyTimer.recordNanoseconds(latencyNs) }
        case .overheadSent(let packets, let bytes):
            state.withLock {
                $0.packetsSent += packets
                $0.bytesSent += bytes
                $0.sent.record(packets: packets, bytes: bytes, nowNs: nil)
            }
        case .statistics(let statistics):
            state.withLock { state in
                state.sender = statistics
                state.network.record(statistics)
            }
        case .keyframeRequested:
            break
        }
    }

    public var snapshot: StatsSnapshot {
        state.withLock { state in
            let end = state.endNs ?? MonotonicClock.nowNs()
            let seconds = state.startNs.map { Double(end - $0) / 1e9 } ?? 0
            return StatsSnapshot(
                framesCaptured: state.framesCaptured, framesEncoded: state.framesEncoded,
                framesDropped: Dictionary(uniqueKeysWithValues: state.dropped.map { ($0.key.rawValue, $0.value) }),
                keyframes: state.keyframes, packetsSent: state.packetsSent, bytesSent: state.bytesSent,
                bitrateKbps: seconds > 0 ? Double(state.bytesSent) * 8 / seconds / 1000 : 0,
                encodeMs: .init(p50: state.encodeTimes.percentileMs(50) ?? 0, p99: state.encodeTimes.percentileMs(99) ?? 0),
                latencyMs: .init(
                    p50: state.latencies.percentileMs(50) ?? 0, p99: state.latencies.percentileMs(99) ?? 0,
                    max: state.latencies.maxMs),
                durationSeconds: seconds, sender: state.sender)
        }
    }
}
