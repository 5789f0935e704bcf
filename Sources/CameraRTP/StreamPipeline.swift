import Adaptation
import Capture
import Dispatch
import Glibc
import Logging
import MediaCore
import Synchronization
import VP8

/// The whole send path: capture source → `VideoSource` (fps cap, crop and scale, rotation) →
/// frame intake → one-slot mailbox → VP8 encoder → encoded-frame sink (the RTP sender, or an
/// IVF file). An application can subscribe its own sinks to `videoSource` beside the encoder.
///
/// Threads: the source captures on its own thread; the encoder runs on `camrtp.encode`;
/// `camrtp.control` ticks the per-second stats, enforces the duration and performs the ordered
/// shutdown. No blocking call runs on the Swift concurrency pool.
///
/// Two shapes: `start()`/`stop()` with an event handler, or `try await run()`, which returns
/// when the source ends, a limit is reached, an error occurs or the task is cancelled. Both
/// publish on `events`. A pipeline runs once: starting it again throws, and one stopped before
/// it started never runs (its start returns at once).
///
/// The sink reports what it delivered (`SinkEvent`) and steers the encoder through an
/// `EncoderControl`: a keyframe when a receiver lost one, the congestion controller's target,
/// and frames dropped before encoding (`congestion`) while the network is full.
public final class StreamPipeline: Sendable {
    public let stats: PipelineStats
    public let events: AsyncStream<PipelineEvent>
    public let source: CaptureSource
    public let configuration: PipelineConfiguration
    /// The capturer's delegate, which adapts frames for the encoder and any other sink.
    public let videoSource: VideoSource

    private let sink: any EncodedFrameSink
    private let encoder: PipelineEncoder
    private let encoderControl: PipelineEncoderControl
    private let mailbox: FrameMailbox
    private let intake: FrameIntake
    private let logger: Logger
    private let eventContinuation: AsyncStream<PipelineEvent>.Continuation
    private let eventHandler: (@Sendable (PipelineEvent) -> Void)?
    let control = ControlState()
    private let encodeThread = Mutex<MediaThread?>(nil)

    /// Makes the encoder now, so bad settings fail before anything starts.
    public init(
        source: CaptureSource, configuration: PipelineConfiguration, sink: any EncodedFrameSink,
        logger: Logger = Logger(label: "camrtp.pipeline"), eventHandler: (@Sendable (PipelineEvent) -> Void)? = nil
    ) throws(VPXError) {
        self.source = source
        self.configuration = configuration
        self.sink = sink
        self.logger = logger
        self.eventHandler = eventHandler
        encoder = try PipelineEncoder(configuration: configuration, format: configuration.outputFormat(for: source), logger: logger)
        encoderControl = PipelineEncoderControl(encoder: encoder)
        stats = PipelineStats(
            measuresLatency: configuration.pace == .realtime, metricsDimensions: configuration.metricsDimensions)
        mailbox = FrameMailbox(lossless: configuration.pace == .fast)
        (events, eventContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(256))
        intake = FrameIntake(mailbox: mailbox, stats: stats, frameLimit: configuration.frameLimit)
        var adaptation = configuration.adaptation
        adaptation.alignTimestamps = adaptation.alignTimestamps || source.hasCameraClock
        videoSource = VideoSource(options: adaptation)
        if configuration.outputSize != nil || configuration.maxFps != nil {
            videoSource.adaptOutputFormat(
                resolution: configuration.outputSize.map { .exact(width: $0.width, height: $0.height) },
                fps: configuration.maxFps)
        }
        intake.pipeline = self
        _ = videoSource.addSink(intake)
        let stats = self.stats
        sink.attach(encoder: encoderControl, reporter: SinkReporter { [weak self] event in
            stats.record(event)
            if case .keyframeRequested(let source) = event { self?.emit(.keyframeRequested(source)) }
        })
    }

    /// Asks the encoder for a keyframe on the next frame, in every encoding.
    public func requestKeyframe() {
        encoder.requestKeyframe()
    }

    /// Changes the target bitrate without restarting; with simulcast it is the total, shared
    /// among the encodings. A sender with congestion control sets it too, so a value given here
    /// holds until the network estimate next changes.
    public func setBitrate(kbps: Int) {
        encoder.setBitrate(kbps: kbps)
    }

    /// The encoder's target bitrate: the last `setBitrate`, else the configuration's.
    public var targetBitrateKbps: Int { encoder.targetBitrateKbps }

    /// Starts capture, encoding and the control thread, and returns once frames flow. Throws
    /// (after stopping everything) if the source cannot start, or if the pipeline has already run;
    /// returns at once if it was stopped before it started.
    /// Blocks while a camera opens, so call it from a thread of your own; `run()` is the form for
    /// async code.
    public func start() throws {
        switch control.beginRun() {
        case .run: break
        case .stoppedBeforeRunning: return
        case .alreadyRan: throw StreamPipelineError.alreadyRun
        }
        let started = DispatchSemaphore(value: 0)
        let failure = Mutex<(any Error)?>(nil)
        launch { error in
            failure.withLock { $0 = error }
            started.signal()
        }
        started.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// Starts the threads and the source; `completion` gets the source's start result, after the
    /// pipeline has stopped if it failed.
    private func launch(completion: @escaping @Sendable ((any Error)?) -> Void) {
        stats.markStarted()
        encodeThread.withLock { $0 = MediaThread(name: "camrtp.encode") { self.encodeLoop() } }
        // The control thread ends the pipeline and signals `waitUntilStopped`; nobody joins it.
        _ = MediaThread(name: "camrtp.control", joinable: false) { self.controlLoop() }
        source.capturer.delegate = videoSource
        source.start { error in
            guard let error else {
                self.emit(.started)
                self.logger.info("streaming \(self.source.summary)")
                completion(nil)
                return
            }
            self.fail(error)
            self.control.whenStopped { completion(error) }
        }
    }

    /// Asks the pipeline to stop; returns at once. Safe from any thread, any number of times,
    /// and before `start()` (the pipeline then never runs).
    public func requestStop() {
        if control.requestStop() { eventContinuation.finish() }
    }

    /// Blocks until the pipeline has stopped: capture stopped, the encoder drained, the sink
    /// finished.
    public func waitUntilStopped() {
        control.waitUntilStopped()
    }

    /// Stops and waits: `requestStop()` then `waitUntilStopped()`.
    public func stop() {
        requestStop()
        waitUntilStopped()
    }

    /// The first run-time error, if the pipeline stopped because of one.
    public var failure: (any Error)? { control.failure }

    /// Runs until the source ends, a limit is reached, an error occurs, or the task is cancelled;
    /// then returns the final figures, or throws the error that stopped it (or
    /// `StreamPipelineError.alreadyRun`: a pipeline runs once). A pipeline stopped before it ran
    /// returns its empty figures at once.
    public func run() async throws -> StatsSnapshot {
        switch control.beginRun() {
        case .run: break
        case .stoppedBeforeRunning: return stats.snapshot
        case .alreadyRan: throw StreamPipelineError.alreadyRun
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            launch { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                control.whenStopped { continuation.resume() }
            }
        } onCancel: {
            requestStop()
        }
        if let failure { throw failure }
        return stats.snapshot
    }

    func fail(_ error: any Error) {
        if control.recordFailure(error) {
            logger.info("stopping on error: \(error)")
            emit(.error("\(error)"))
        }
        requestStop()
    }

    func emit(_ event: PipelineEvent) {
        eventContinuation.yield(event)
        eventHandler?(event)
    }

    private func encodeLoop() {
        let maxAgeNs = Int64(configuration.maxLatencyMs * 1e6)
        while let frame = mailbox.take() {
            if control.failure != nil {
                drop(.shutdown)
                continue
            }
            let startNs = MonotonicClock.nowNs()
            if configuration.pace == .realtime && startNs - frame.timestampNs > maxAgeNs {
                drop(.tooOld)
                continue
            }
            if encoderControl.isNetworkCongested {
                drop(.congestion)
                continue
            }
            do {
                // A picture counts once, before the sink sees it, however many encodings it
                // makes (a keyframe if any of them is one); each goes to the sink, lowest first.
                var counted = false
                var keyframeTimestampNs: Int64?
                let count = try encoder.encode(frame) { encoded, pictureHasKeyframe in
                    if !counted {
                        counted = true
                        stats.frameEncoded(isKeyframe: pictureHasKeyframe, encodeTimeNs: MonotonicClock.nowNs() - startNs)
                    }
                    if pictureHasKeyframe { keyframeTimestampNs = encoded.timestampNs }
                    try sink.consume(encoded)
                }
                guard count > 0 else {
                    stats.encodeTimeOfDroppedFrame(MonotonicClock.nowNs() - startNs)
                    drop(.encoderDrop)
                    continue
                }
                if let keyframeTimestampNs { emit(.keyframeSent(timestampNs: keyframeTimestampNs)) }
            } catch {
                fail(error)
            }
        }
    }

    func drop(_ reason: FrameDropReason) {
        stats.frameDropped(reason)
        emit(.frameDropped(reason))
    }

    private func controlLoop() {
        let startNs = MonotonicClock.nowNs()
        let deadlineNs = configuration.deadlineNs(startingAt: startNs)
        var nextTickNs = startNs + 1_000_000_000
        while !control.waitForStop(untilNs: min(nextTickNs, deadlineNs ?? .max)) {
            let now = MonotonicClock.nowNs()
            if let deadlineNs, now >= deadlineNs {
                control.requestStop()
            } else if now >= nextTickNs {
                emit(.stats(stats.snapshot))
                nextTickNs += 1_000_000_000
            }
        }
        shutDown()
    }

    /// Stops in dependency order: no new frames, the encoder drains, the sink flushes.
    private func shutDown() {
        source.capturer.stopCapture()
        mailbox.close()
        encodeThread.withLock { $0 }?.join()
        do {
            try sink.finish()
        } catch {
            if control.recordFailure(error) { emit(.error("\(error)")) }
        }
        stats.markStopped()
        let final = stats.snapshot
        emit(.stopped(final))
        eventContinuation.finish()
        control.markStopped()
    }
}

/// The encoder's subscription to the video source: counts every captured frame and hands it to
/// the mailbox.
final class FrameIntake: VideoSink, @unchecked Sendable {
    private let mailbox: FrameMailbox
    private let stats: PipelineStats
    private let frameLimit: Int?
    private let captured = Atomic<Int>(0)
    /// Set once, right after init, before capture starts.
    weak var pipeline: StreamPipeline?

    init(mailbox: FrameMailbox, stats: PipelineStats, frameLimit: Int?) {
        self.mailbox = mailbox
        self.stats = stats
        self.frameLimit = frameLimit
    }

    /// Counts a frame against the limit; false when it is past the limit and must be ignored.
    private func admit() -> Bool {
        let count = captured.add(1, ordering: .relaxed).newValue
        if let frameLimit {
            if count > frameLimit { return false }
            if count == frameLimit { pipeline?.requestStop() }
        }
        stats.frameCaptured()
        return true
    }

    func onFrame(_ frame: VideoFrame) {
        guard admit() else { return }
        switch mailbox.put(frame) {
        case .accepted: break
        case .replaced: pipeline?.drop(.late)
        case .closed: pipeline?.drop(.shutdown)
        }
    }

    func onDroppedFrame(timestampNs: Int64, reason: FrameDropReason) {
        guard admit() else { return }
        pipeline?.drop(reason)
    }

    func didFail(_ error: any Error) {
        pipeline?.fail(error)
    }

    func capturerDidFinish() {
        pipeline?.requestStop()
    }
}

/// Whether the pipeline has run, stop requests, the first failure, and the stopped flag, behind
/// one condition.
final class ControlState: @unchecked Sendable {
    private let condition = ThreadCondition()
    private var hasRun = false
    private var stopRequested = false
    private var stopped = false
    private var firstFailure: (any Error)?
    private var stoppedHandlers: [@Sendable () -> Void] = []

    enum RunPermission {
        case run
        /// Stopped before it ran: there is nothing to do.
        case stoppedBeforeRunning
        case alreadyRan
    }

    /// `.run` the first time. A pipeline stopped before it ran never will.
    func beginRun() -> RunPermission {
        condition.lock()
        defer { condition.unlock() }
        if hasRun { return .alreadyRan }
        if stopped { return .stoppedBeforeRunning }
        hasRun = true
        return .run
    }

    /// Asks a running pipeline to stop; one that never ran is stopped at once, and then this
    /// returns true.
    @discardableResult
    func requestStop() -> Bool {
        condition.lock()
        stopRequested = true
        let neverRan = !hasRun && !stopped
        condition.broadcast()
        condition.unlock()
        if neverRan { markStopped() }
        return neverRan
    }

    /// Waits until a stop is requested or the clock reaches `untilNs`; true if stop was requested.
    func waitForStop(untilNs: Int64) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !stopRequested {
            if MonotonicClock.nowNs() >= untilNs { return false }
            condition.wait(untilNs: untilNs)
        }
        return true
    }

    /// Keeps the first failure; true if this was it.
    func recordFailure(_ error: any Error) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard firstFailure == nil else { return false }
        firstFailure = error
        return true
    }

    var failure: (any Error)? {
        condition.lock()
        defer { condition.unlock() }
        return firstFailure
    }

    func markStopped() {
        condition.lock()
        stopped = true
        let handlers = stoppedHandlers
        stoppedHandlers = []
        condition.broadcast()
        condition.unlock()
        for handler in handlers { handler() }
    }

    /// Calls `handler` once the pipeline has stopped, at once if it already has.
    func whenStopped(_ handler: @escaping @Sendable () -> Void) {
        condition.lock()
        guard !stopped else {
            condition.unlock()
            handler()
            return
        }
        stoppedHandlers.append(handler)
        condition.unlock()
    }

    func waitUntilStopped() {
        condition.lock()
        while !stopped { condition.wait() }
        condition.unlock()
    }
}

/// The encoder as the sink steers it: keyframes and the target go to libvpx, congestion to the
/// encoder loop, which drops frames while it lasts.
final class PipelineEncoderControl: EncoderControl {
    private let encoder: PipelineEncoder
    private let congested = Atomic<Bool>(false)

    init(encoder: PipelineEncoder) {
        self.encoder = encoder
    }

    var isNetworkCongested: Bool { congested.load(ordering: .relaxed) }

    func requestKeyframe() {
        encoder.requestKeyframe()
    }

    func requestKeyframe(encodingIndex: Int) {
        encoder.requestKeyframe(encodingIndex: encodingIndex)
    }

    func setTargetBitrate(kbps: Int) {
        encoder.setBitrate(kbps: kbps)
    }

    func setActiveEncodings(_ encodings: Set<Int>) {
        encoder.setActiveEncodings(encodings)
    }

    func setNetworkCongested(_ congested: Bool) {
        self.congested.store(congested, ordering: .relaxed)
    }
}

/// Misuse of a pipeline's life cycle.
public enum StreamPipelineError: Error, Sendable, CustomStringConvertible {
    /// `start()` or `run()` on a pipeline that has already run (or was stopped before it ran).
    case alreadyRun

    public var description: String {
        switch self {
        case .alreadyRun: "this pipeline has already run; a pipeline runs once, so make a new one"
        }
    }
}
