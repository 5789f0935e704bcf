import MediaCore
import Metrics

/// One capture and one encoder shared by many viewers: an `EncodedFrameSink` that hands every
/// encoded frame to each viewer's own sink (a WebRTC sender per viewer, each with its own ICE,
/// DTLS and SRTP).
///
/// - Each viewer starts on a keyframe: a joining viewer skips frames until one comes and asks for
///   it, so it waits at most one frame interval plus the keyframe rate limit.
/// - Viewers steer the encoder together through `ViewerSteering`: keyframe requests are merged
///   and rate-limited, the target follows the lowest estimate.
/// - With temporal layers, each viewer gets the layers its own estimate carries
///   (`TemporalLayerSelection`), and the target follows the best viewer instead.
/// - With simulcast, each viewer gets the one encoding its estimate carries
///   (`SimulcastSelection`), switching on that encoding's keyframe, and within it the temporal
///   layers it carries; the frames reach its sink as its only encoding (index 0), and its PLIs
///   ask for a keyframe of that encoding alone.
/// - Each viewer has a bounded queue and a thread: a slow viewer loses its own frames and
///   resynchronises on a keyframe, and a failing one is removed; neither blocks the others.
/// - With no viewer, the encoder is told the network is congested, so frames are dropped before
///   encoding and an idle server costs capture only.
/// - Each viewer's figures are also swift-metrics series labelled with its `metricsLabel`
///   (`ViewerMetrics`), and `camrtp_viewers_connected` counts the viewers.
public final class MultiViewerSink: EncodedFrameSink, @unchecked Sendable {
    /// A viewer ended, with its final figures: closed by `removeViewer` or `finish` (error nil),
    /// or by the error its sink threw.
    public typealias EndHandler = @Sendable (_ final: ViewerStatistics, _ error: (any Error)?) -> Void

    private let lock = ThreadCondition()
    private let clock: @Sendable () -> Int64
    private let queueCapacity: Int
    private let onViewerEnded: EndHandler?
    private var steering: ViewerSteering
    private var encoder: (any EncoderControl)?
    private var reporter = SinkReporter.ignoring
    private var channels: [Int: ViewerChannel] = [:]
    private var statistics: [Int: ViewerStatistics] = [:]
    private var metrics: [Int: ViewerMetrics] = [:]
    /// Each viewer's temporal layers; empty without layers.
    private var layerSelections: [Int: TemporalLayerSelection] = [:]
    private let layerShares: [Double]
    /// Each viewer's simulcast encoding; empty without simulcast.
    private var encodingSelections: [Int: SimulcastSelection] = [:]
    /// Each viewer's encoder control, through which its sender learns the padding probe asked of it.
    private var controls: [Int: ViewerEncoderControl] = [:]
    private let encodingCount: Int
    private let connectedGauge = Gauge(label: "camrtp_viewers_connected")
    private var joinedNs: [Int: Int64] = [:]
    private var nextID = 1
    private var finished = false

    /// - Parameters:
    ///   - queueCapacity: frames a viewer may fall behind before it loses them (8 ≈ 270 ms at 30 fps).
    ///   - temporalLayerShares: the encoder's temporal layers' cumulative shares of its rate, base
    ///     first (of each encoding's rate with simulcast); one layer (`[1]`) forwards every frame
    ///     to every viewer.
    ///   - encodingAllocation: with simulcast, how the encoder shares its target among its
    ///     encodings; nil with one encoding.
    ///   - clock: nanoseconds on `CLOCK_MONOTONIC`; tests pass their own.
    public init(
        minBitrateKbps: Int, maxBitrateKbps: Int, queueCapacity: Int = 8,
        minimumKeyframeIntervalNs: Int64 = 300_000_000, temporalLayerShares: [Double] = [1],
        encodingAllocation: ViewerSteering.EncodingAllocation? = nil,
        clock: @escaping @Sendable () -> Int64 = MonotonicClock.nowNs,
        onViewerEnded: EndHandler? = nil
    ) {
        layerShares = temporalLayerShares.isEmpty ? [1] : temporalLayerShares
        encodingCount = max(1, encodingAllocation?(maxBitrateKbps).count ?? 1)
        steering = ViewerSteering(
            minBitrateKbps: minBitrateKbps, maxBitrateKbps: maxBitrateKbps,
            minimumKeyframeIntervalNs: minimumKeyframeIntervalNs, baseLayerShare: layerShares[0],
            encodingAllocation: encodingAllocation)
        self.queueCapacity = queueCapacity
        self.clock = clock
        self.onViewerEnded = onViewerEnded
    }

    public var viewerCount: Int { lock.withLock { channels.count } }

    /// The encoder target the viewers agree on, in kbit/s.
    public var targetBitrateKbps: Int { lock.withLock { steering.targetBitrateKbps } }

    /// Every current viewer's figures, by id.
    public var viewerStatistics: [ViewerStatistics] {
        lock.withLock { channels.keys.sorted().compactMap { statistics[$0] } }
    }

    /// A current viewer's figures; nil once it has ended (`onViewerEnded` has the final ones).
    public func statistics(of id: Int) -> ViewerStatistics? {
        lock.withLock { statistics[id] }
    }

    /// Adds a viewer while the stream runs (or before it starts). Its sink is attached on the
    /// viewer's own thread, gets frames from the next keyframe on, and is finished when the viewer
    /// is removed. Returns the viewer's id, or nil once the stream has finished. Its series are
    /// labelled `metricsLabel`, or its id.
    @discardableResult
    public func addViewer(_ sink: any EncodedFrameSink, metricsLabel: String? = nil) -> Int? {
        let channel: ViewerChannel
        let id: Int
        let control: ViewerEncoderControl
        do {
            lock.lock()
            defer { lock.unlock() }
            guard !finished else { return nil }
            id = nextID
            nextID += 1
            channel = ViewerChannel(id: id, sink: sink, capacity: queueCapacity)
            control = ViewerEncoderControl(id: id, owner: self)
            channels[id] = channel
            controls[id] = control
            statistics[id] = ViewerStatistics(id: id)
            metrics[id] = ViewerMetrics(label: metricsLabel ?? String(id), layered: layerShares.count > 1, simulcast: encodingCount > 1)
            if layerShares.count > 1 {
                let selection = TemporalLayerSelection(cumulativeShares: layerShares)
                layerSelections[id] = selection
                metrics[id]?.recordTemporalLayer(selection.forwardedLayer)
            }
            var startEncoding = 0
            if encodingCount > 1 {
                var selection = SimulcastSelection(encodingCount: encodingCount)
                startEncoding = selection.takeKeyframeRequest() ?? selection.targetEncoding
                encodingSelections[id] = selection
            }
            connectedGauge.record(channels.count)
            let now = clock()
            joinedNs[id] = now
            apply(steering.addViewer(id, encodingIndex: startEncoding, nowNs: now))
        }
        let reporter = SinkReporter { [weak self] event in self?.record(event, from: id) }
        channel.start(
            control: control, reporter: reporter,
            requestResync: { [weak self] in self?.viewerRequestedKeyframe(id, counted: false) },
            ended: { [weak self] error in self?.channelEnded(id, error: error) })
        return id
    }

    /// Ends a viewer: frames stop at once, and its sink is finished on its own thread (so a
    /// stuck sink cannot stall the caller). Returns false for an unknown id.
    @discardableResult
    public func removeViewer(_ id: Int) -> Bool {
        let channel: ViewerChannel? = lock.withLock {
            guard let channel = channels.removeValue(forKey: id) else { return nil }
            apply(steering.removeViewer(id))
            connectedGauge.record(channels.count)
            return channel
        }
        channel?.close()
        return channel != nil
    }

    // MARK: EncodedFrameSink

    public func attach(encoder: any EncoderControl, reporter: SinkReporter) {
        lock.withLock {
            self.encoder = encoder
            self.reporter = reporter
            encoder.setNetworkCongested(steering.isCongested)
            if steering.viewerCount > 0 { encoder.setTargetBitrate(kbps: steering.targetBitrateKbps) }
        }
    }

    public func consume(_ frame: EncodedFrame) throws {
        lock.lock()
        let now = clock()
        apply(steering.poll(nowNs: now))
        for (id, channel) in channels {
            guard var selection = encodingSelections[id] else {
                forward(frame, to: channel, id: id, nowNs: now)
                continue
            }
            let pending = selection.pendingUpSwitch
            let frames = selection.take(frame, nowNs: now)
            if let index = selection.takeKeyframeRequest() { apply(steering.keyframeRequested(encodingIndex: index, nowNs: now)) }
            encodingSelections[id] = selection
            // An up-switch made here ends its probe; only an estimate starts one (`steer`).
            if selection.pendingUpSwitch != pending { updatePaddingProbe(of: id, rates: steering.encodingRatesKbps) }
            if let forwarded = selection.forwardedEncoding, statistics[id]?.encodingIndex != forwarded {
                statistics[id]?.encodingIndex = forwarded
                metrics[id]?.recordEncoding(forwarded)
            }
            for var frame in frames {
                frame.encodingIndex = 0
                forward(frame, to: channel, id: id, nowNs: now)
            }
        }
        lock.unlock()
    }

    /// Hands a frame to one viewer, within its temporal layers; called with the lock held.
    private func forward(_ frame: EncodedFrame, to channel: ViewerChannel, id: Int, nowNs now: Int64) {
        if var selection = layerSelections[id] {
            let forwards = selection.forwards(frame, nowNs: now)
            layerSelections[id] = selection
            if statistics[id]?.temporalLayer != selection.forwardedLayer {
                statistics[id]?.temporalLayer = selection.forwardedLayer
                metrics[id]?.recordTemporalLayer(selection.forwardedLayer)
            }
            guard forwards else {
                statistics[id]?.framesAboveLayer += 1
                return
            }
        }
        let offer = channel.offer(frame)
        metrics[id]?.record(offer)
        guard var stats = statistics[id] else { return }
        switch offer {
        case .queued:
            stats.framesForwarded += 1
            if stats.firstFrameDelayNs == nil, let joined = joinedNs[id] { stats.firstFrameDelayNs = now - joined }
        case .skipped:
            stats.framesSkippedBeforeKeyframe += 1
        case .overflowed(let dropped):
            stats.framesDroppedSlow += dropped
        case .closed:
            break
        }
        statistics[id] = stats
    }

    /// Closes every viewer and waits until each has finished its sink.
    public func finish() throws {
        let closing: [ViewerChannel] = lock.withLock {
            finished = true
            connectedGauge.record(0)
            defer { channels.removeAll() }
            return Array(channels.values)
        }
        for channel in closing { channel.close() }
        for channel in closing { channel.waitUntilEnded() }
    }

    // MARK: Viewers' requests

    func viewerRequestedKeyframe(_ id: Int, counted: Bool = true) {
        lock.withLock {
            guard channels[id] != nil else { return }
            if counted {
                statistics[id]?.keyframeRequests += 1
                metrics[id]?.keyframeRequested()
            }
            let encoding = encodingSelections[id].map { $0.forwardedEncoding ?? $0.targetEncoding } ?? 0
            apply(steering.keyframeRequested(encodingIndex: encoding, nowNs: clock()))
        }
    }

    /// A viewer's estimate moves the encoder's target, and with it every viewer's encoding and
    /// layers: each is judged against the rate of the encoding it gets.
    func viewerEstimate(_ id: Int, kbps: Int) {
        lock.withLock {
            statistics[id]?.estimateKbps = kbps
            steer(byEstimateOf: id)
        }
    }

    /// Applies a viewer's estimate, capped where its path refused a padding probe, to the
    /// encoder's target and every viewer's selections; with the lock held.
    private func steer(byEstimateOf id: Int) {
        guard let kbps = statistics[id]?.estimateKbps else { return }
        apply(steering.viewerEstimate(id, kbps: min(kbps, encodingSelections[id]?.ceilingKbps ?? .max)))
        let now = clock(), rates = steering.encodingRatesKbps
        for viewer in channels.keys {
            guard let estimate = steering.estimate(of: viewer) else { continue }
            var encoding = 0
            if var selection = encodingSelections[viewer] {
                selection.update(estimateKbps: estimate, encodingRatesKbps: rates, nowNs: now)
                if let index = selection.takeKeyframeRequest() { apply(steering.keyframeRequested(encodingIndex: index, nowNs: now)) }
                encodingSelections[viewer] = selection
                updatePaddingProbe(of: viewer, rates: rates)
                encoding = selection.forwardedEncoding ?? selection.targetEncoding
            }
            if var selection = layerSelections[viewer], rates.indices.contains(encoding) {
                selection.update(estimateKbps: estimate, encoderKbps: rates[encoding], nowNs: now)
                layerSelections[viewer] = selection
            }
        }
    }

    /// The viewer's padding probe lost packets: its pending up-switch is cancelled.
    func viewerPaddingProbeFailed(_ id: Int) {
        lock.withLock {
            guard var selection = encodingSelections[id], let control = controls[id] else { return }
            selection.paddingProbeFailed(goalKbps: control.paddingProbe.load(ordering: .relaxed), nowNs: clock())
            encodingSelections[id] = selection
            statistics[id]?.paddingProbesFailed += 1
            steer(byEstimateOf: id)
        }
    }

    /// Tells the viewer's sender the padding its pending up-switch asks for, at the encodings'
    /// `rates`; with the lock held.
    private func updatePaddingProbe(of id: Int, rates: [Int]) {
        guard let selection = encodingSelections[id], let control = controls[id] else { return }
        let kbps = selection.paddingProbeKbps(estimateKbps: steering.estimate(of: id) ?? 0, encodingRatesKbps: rates)
        control.paddingProbe.store(kbps, ordering: .relaxed)
    }

    func viewerCongested(_ id: Int, _ congested: Bool) {
        lock.withLock { apply(steering.viewerCongested(id, congested)) }
    }

    // MARK: Private

    /// Called with the lock held; the encoder's controls only set flags, so they never call back.
    private func apply(_ decision: ViewerSteering.Decision) {
        guard let encoder else { return }
        if let congested = decision.congested { encoder.setNetworkCongested(congested) }
        if let kbps = decision.targetBitrateKbps { encoder.setTargetBitrate(kbps: kbps) }
        for index in decision.keyframes {
            encoder.requestKeyframe(encodingIndex: index)
            reporter.report(.keyframeRequested(.application))
        }
    }

    /// A viewer's sink reports its deliveries: kept per viewer, and packets and bytes passed on
    /// so the pipeline's totals are what went to the network. Its `statistics` stay per viewer:
    /// the pipeline's figures are about one sender.
    private func record(_ event: SinkEvent, from id: Int) {
        lock.lock()
        var forward = false
        metrics[id]?.record(event)
        if var stats = statistics[id] {
            switch event {
            case .frameDelivered(_, let packets, let bytes, _):
                stats.framesDelivered += 1
                stats.packetsSent += packets
                stats.bytesSent += bytes
                forward = true
            case .overheadSent(let packets, let bytes):
                stats.packetsSent += packets
                stats.bytesSent += bytes
                forward = true
            case .statistics(let sender):
                stats.sender = sender
            case .keyframeRequested:
                break
            }
            statistics[id] = stats
        }
        let reporter = self.reporter
        lock.unlock()
        if forward { reporter.report(event) }
    }

    /// The viewer's thread is done with its sink; a sink that failed is still listed.
    private func channelEnded(_ id: Int, error: (any Error)?) {
        let final: ViewerStatistics? = lock.withLock {
            joinedNs[id] = nil
            if channels.removeValue(forKey: id) != nil {
                apply(steering.removeViewer(id))
                connectedGauge.record(channels.count)
            }
            metrics.removeValue(forKey: id)?.destroy()
            layerSelections[id] = nil
            encodingSelections[id] = nil
            controls[id] = nil
            return statistics.removeValue(forKey: id)
        }
        if let final { onViewerEnded?(final, error) }
    }
}
