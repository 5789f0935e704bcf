import Metrics
import MediaCore
import Synchronization

/// Counts what happens, where it happens, from any thread; and mirrors every count into
/// swift-metrics, whose backend the application may bootstrap (the default discards them).
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
    }

    private let state = Mutex(State())
    private let capturedCounter: Counter
    private let encodedCounter: Counter
    private let keyframeCounter: Counter
    private let packetCounter: Counter
    private let byteCounter: Counter
    private let dropCounters: [FrameDropReason: Counter]
    private let encodeTimer: Timer
    private let latencyTimer: Timer
    private let network: NetworkMetrics
    /// False in `--pace fast`, where frames carry media time that runs ahead of the clock, so the
    /// time from "capture" to the wire means nothing.
    public let measuresLatency: Bool

    /// - Parameter metricsDimensions: added to every metric, so that an application running
    ///   several pipelines can tell them apart, such as `[("stream", "lobby-camera")]`.
    public init(measuresLatency: Bool = true, metricsDimensions: [(String, String)] = []) {
        self.measuresLatency = measuresLatency
        capturedCounter = Counter(label: "camrtp_frames_captured", dimensions: metricsDimensions)
        encodedCounter = Counter(label: "camrtp_frames_encoded", dimensions: metricsDimensions)
        keyframeCounter = Counter(label: "camrtp_keyframes", dimensions: metricsDimensions)
        packetCounter = Counter(label: "camrtp_packets_sent", dimensions: metricsDimensions)
        byteCounter = Counter(label: "camrtp_bytes_sent", dimensions: metricsDimensions)
        dropCounters = Dictionary(uniqueKeysWithValues: FrameDropReason.allCases.map {
            ($0, Counter(label: "camrtp_frames_dropped", dimensions: metricsDimensions + [("reason", $0.rawValue)]))
        })
        encodeTimer = Timer(label: "camrtp_encode_time", dimensions: metricsDimensions)
        latencyTimer = Timer(label: "camrtp_capture_to_wire_latency", dimensions: metricsDimensions)
        network = NetworkMetrics(dimensions: metricsDimensions)
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
            }
            packetCounter.increment(by: Int64(packets))
            byteCounter.increment(by: Int64(bytes))
            if measuresLatency { latencyTimer.recordNanoseconds(latencyNs) }
        case .overheadSent(let packets, let bytes):
            state.withLock {
                $0.packetsSent += packets
                $0.bytesSent += bytes
            }
            packetCounter.increment(by: Int64(packets))
            byteCounter.increment(by: Int64(bytes))
        case .statistics(let statistics):
            let previous = state.withLock { state in
                defer { state.sender = statistics }
                return state.sender
            }
            network.record(statistics, previous: previous)
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

/// The sender's figures as swift-metrics: counters grow by what changed since the last report,
/// gauges carry RTT, loss and the target rate over time.
private struct NetworkMetrics: Sendable {
    private let rtcpCounters: [(count: @Sendable (SenderStatistics.RTCPReceived) -> Int, counter: Counter)]
    private let retransmittedCounter: Counter
    private let keyframesOnRequestCounter: Counter
    private let roundTripTime: Gauge
    private let fractionLost: Gauge
    private let targetBitrate: Gauge

    init(dimensions: [(String, String)]) {
        let types: [(@Sendable (SenderStatistics.RTCPReceived) -> Int, String)] = [
            ({ $0.rr }, "rr"), ({ $0.sr }, "sr"), ({ $0.nack }, "nack"), ({ $0.pli }, "pli"), ({ $0.fir }, "fir"),
            ({ $0.remb }, "remb"), ({ $0.twcc }, "twcc"), ({ $0.other }, "other"), ({ $0.rejected }, "rejected"),
        ]
        rtcpCounters = types.map { ($0.0, Counter(label: "camrtp_rtcp_received", dimensions: dimensions + [("type", $0.1)])) }
        retransmittedCounter = Counter(label: "camrtp_packets_retransmitted", dimensions: dimensions)
        keyframesOnRequestCounter = Counter(label: "camrtp_keyframes_on_request", dimensions: dimensions)
        roundTripTime = Gauge(label: "camrtp_rtt_ms", dimensions: dimensions)
        fractionLost = Gauge(label: "camrtp_receiver_fraction_lost", dimensions: dimensions)
        targetBitrate = Gauge(label: "camrtp_target_bitrate_kbps", dimensions: dimensions)
    }

    func record(_ statistics: SenderStatistics, previous: SenderStatistics?) {
        for (count, counter) in rtcpCounters {
            let growth = count(statistics.rtcpReceived) - (previous.map { count($0.rtcpReceived) } ?? 0)
            if growth > 0 { counter.increment(by: Int64(growth)) }
        }
        let retransmitted = statistics.packetsRetransmitted - (previous?.packetsRetransmitted ?? 0)
        if retransmitted > 0 { retransmittedCounter.increment(by: Int64(retransmitted)) }
        let onRequest = statistics.keyframesOnRequest - (previous?.keyframesOnRequest ?? 0)
        if onRequest > 0 { keyframesOnRequestCounter.increment(by: Int64(onRequest)) }
        if let rtt = statistics.rttMs { roundTripTime.record(rtt.last) }
        if let lost = statistics.receiverFractionLost { fractionLost.record(lost) }
        targetBitrate.record(statistics.targetBitrateKbps.last)
    }
}
