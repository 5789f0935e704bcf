import FrameProcessing
import MediaCore
import Synchronization

/// How a `VideoSource` treats frames, beyond the output format.
public struct VideoSourceOptions: Sendable, Equatable {
    /// Rotate the pixels upright instead of passing the rotation on as metadata, for sinks that
    /// cannot signal it (no CVO). The output then has rotation `.deg0`, and width and height
    /// swapped for 90 and 270.
    public var applyRotation: Bool
    /// Flip the picture left to right as a viewer sees it upright (a selfie view).
    public var mirror: Bool
    /// Map frame timestamps from the capturer's clock onto `CLOCK_MONOTONIC` with a
    /// `TimestampAligner`. Leave it off for sources that already stamp on that clock.
    public var alignTimestamps: Bool
    /// Pictures each processing step may have in flight, counting those sinks still hold.
    public var bufferPoolCapacity: Int

    public init(applyRotation: Bool = false, mirror: Bool = false, alignTimestamps: Bool = false, bufferPoolCapacity: Int = 6) {
        self.applyRotation = applyRotation
        self.mirror = mirror
        self.alignTimestamps = alignTimestamps
        self.bufferPoolCapacity = bufferPoolCapacity
    }
}

/// The capturer's delegate that adapts frames and fans them out to sinks, as WebRTC's
/// `RTCVideoSource` / `AdaptedVideoTrackSource` with its `VideoAdapter` and
/// `TimestampAligner`.
///
/// For every captured frame, on the capture thread:
/// 1. the timestamp is aligned to the system clock (when asked), from every frame, dropped or not;
/// 2. the fps cap decides on the capturer's own timestamp, which is steadier than the aligned
///    one, as `ObjCVideoTrackSource::OnCapturedFrame` does; a dropped frame is reported `.fpsCap`;
/// 3. the picture is cropped and scaled (`FrameGeometry`), mirrored, and rotated, each by
///    libyuv into a pooled buffer; an empty pool drops the frame as `.poolExhausted`;
/// 4. the frame goes to every sink.
/// A frame that needs none of step 3 passes through with its buffer untouched and uncopied.
/// Each captured frame thus reaches the sinks once, either as a frame or as one drop report.
///
/// Feed it from one capturer at a time. Everything else may be called from any thread, at
/// any time.
public final class VideoSource: VideoCapturerDelegate {
    private struct State {
        var limiter = FrameRateLimiter()
        var aligner = TimestampAligner()
        var resolution: ResolutionRequest?
        var options: VideoSourceOptions
    }

    /// What to do with one frame, decided under the lock and carried out outside it.
    private struct Plan {
        var timestampNs: Int64
        var geometry: FrameGeometry
        var mirror: Bool
        var applyRotation: Bool
    }

    private enum Decision {
        case keep(Plan)
        case dropByFpsCap(timestampNs: Int64)
    }

    private enum Outcome {
        case deliver(VideoFrame)
        case drop(timestampNs: Int64, reason: FrameDropReason)
    }

    private let state: Mutex<State>
    private let sinks = SinkList()
    private let systemClockNs: @Sendable () -> Int64
    // One pool per step: a pool keeps one picture size, and each step has its own.
    private let scaledPool: I420BufferPool
    private let mirroredPool: I420BufferPool
    private let rotatedPool: I420BufferPool

    /// - Parameter systemClockNs: the clock timestamps are aligned to; `CLOCK_MONOTONIC`
    ///   except in tests.
    public init(options: VideoSourceOptions = VideoSourceOptions(), systemClockNs: @escaping @Sendable () -> Int64 = MonotonicClock.nowNs) {
        state = Mutex(State(options: options))
        self.systemClockNs = systemClockNs
        scaledPool = I420BufferPool(capacity: options.bufferPoolCapacity)
        mirroredPool = I420BufferPool(capacity: options.bufferPoolCapacity)
        rotatedPool = I420BufferPool(capacity: options.bufferPoolCapacity)
    }

    // MARK: Configuration

    /// Asks for frames of exactly `width × height` (following the input's orientation; see
    /// `ResolutionRequest.exact`) at no more than `fps` frames per second. Takes effect from the
    /// next frame; a changed fps restarts the frame-rate grid. `fps` nil means no cap.
    public func adaptOutputFormat(width: Int, height: Int, fps: Double?) {
        adaptOutputFormat(resolution: .exact(width: width, height: height), fps: fps)
    }

    /// Asks for any resolution request (nil keeps the input size) and fps cap (nil: none).
    public func adaptOutputFormat(resolution: ResolutionRequest?, fps: Double?) {
        state.withLock { state in
            state.resolution = resolution
            state.limiter.setMaxFps(fps)
        }
    }

    public var applyRotation: Bool {
        get { state.withLock { $0.options.applyRotation } }
        set { state.withLock { $0.options.applyRotation = newValue } }
    }

    public var mirror: Bool {
        get { state.withLock { $0.options.mirror } }
        set { state.withLock { $0.options.mirror = newValue } }
    }

    // MARK: Sinks

    /// Subscribes `sink`; the source holds it until `removeSink`.
    public func addSink(_ sink: any VideoSink) -> SinkToken {
        sinks.add(sink)
    }

    /// Unsubscribes a sink. Once this returns, the sink gets no further call: a call in progress
    /// on the capture thread is waited for. A sink may remove itself from inside a call without
    /// deadlock; that call is then its last. Do not, inside a sink call, wait for another thread
    /// that is removing the same sink.
    public func removeSink(_ token: SinkToken) {
        sinks.remove(token)
    }

    // MARK: VideoCapturerDelegate

    public func capturer(_ capturer: any VideoCapturer, didCapture frame: VideoFrame) {
        switch adapt(frame) {
        case .deliver(let output):
            sinks.forEach { $0.onFrame(output) }
        case .drop(let timestampNs, let reason):
            sinks.forEach { $0.onDroppedFrame(timestampNs: timestampNs, reason: reason) }
        }
    }

    public func capturer(_ capturer: any VideoCapturer, didDropFrame timestampNs: Int64, reason: FrameDropReason) {
        sinks.forEach { $0.onDroppedFrame(timestampNs: timestampNs, reason: reason) }
    }

    public func capturer(_ capturer: any VideoCapturer, didFail error: any Error) {
        sinks.forEach { $0.didFail(error) }
    }

    public func capturerDidFinish(_ capturer: any VideoCapturer) {
        sinks.forEach { $0.capturerDidFinish() }
    }

    // MARK: Adaptation

    private func adapt(_ frame: VideoFrame) -> Outcome {
        let arrivalNs = systemClockNs()
        let decision = state.withLock { state -> Decision in
            let timestampNs = state.options.alignTimestamps
                ? state.aligner.translate(captureTimestampNs: frame.timestampNs, systemTimeNs: arrivalNs)
                : frame.timestampNs
            if state.limiter.shouldDropFrame(timestampNs: frame.timestampNs) {
                return .dropByFpsCap(timestampNs: timestampNs)
            }
            return .keep(Plan(
                timestampNs: timestampNs,
                geometry: FrameGeometry(inputWidth: frame.width, inputHeight: frame.height, request: state.resolution),
                mirror: state.options.mirror,
                applyRotation: state.options.applyRotation))
        }
        switch decision {
        case .dropByFpsCap(let timestampNs):
            return .drop(timestampNs: timestampNs, reason: .fpsCap)
        case .keep(let plan):
            do throws(StepFailure) {
                return .deliver(try transform(frame, plan))
            } catch {
                return .drop(timestampNs: plan.timestampNs, reason: error.reason)
            }
        }
    }

    /// Crop and scale, then mirror, then rotate, each only when needed.
    private func transform(_ frame: VideoFrame, _ plan: Plan) throws(StepFailure) -> VideoFrame {
        var buffer = frame.buffer
        var rotation = frame.rotation
        if !plan.geometry.isIdentity {
            let source = buffer
            buffer = try render(in: scaledPool, width: plan.geometry.width, height: plan.geometry.height) { output throws(LibyuvError) in
                try I420Transform.scale(source, crop: plan.geometry.crop, into: output)
            }
        }
        if plan.mirror {
            let source = buffer
            buffer = try render(in: mirroredPool, width: source.width, height: source.height) { output throws(LibyuvError) in
                try I420Transform.mirror(source, into: output)
            }
            // A mirror image turns the other way: flipping after a clockwise rotation by θ is
            // the same as rotating by −θ after flipping, so the stored picture can be flipped
            // and the viewer still sees it upright and mirrored.
            rotation = rotation.mirrored
        }
        if plan.applyRotation, rotation != .deg0 {
            let source = buffer
            let turn = rotation
            let width = turn.swapsDimensions ? source.height : source.width
            let height = turn.swapsDimensions ? source.width : source.height
            buffer = try render(in: rotatedPool, width: width, height: height) { output throws(LibyuvError) in
                try I420Transform.rotate(source, by: turn, into: output)
            }
            rotation = .deg0
        }
        return VideoFrame(buffer: buffer, rotation: rotation, timestampNs: plan.timestampNs)
    }

    /// One processing step: a pooled picture of the given size, drawn by `draw`.
    private func render(
        in pool: I420BufferPool, width: Int, height: Int, _ draw: (I420Buffer) throws(LibyuvError) -> Void
    ) throws(StepFailure) -> I420Buffer {
        guard let output = pool.makeBuffer(width: width, height: height) else {
            throw StepFailure(reason: .poolExhausted)
        }
        do {
            try draw(output)
        } catch {
            // Only an invalid size or crop makes libyuv fail, which the geometry rules out.
            throw StepFailure(reason: .conversionFailed)
        }
        return output
    }
}

/// Why one processing step could not produce its picture.
private struct StepFailure: Error {
    let reason: FrameDropReason
}

extension VideoRotation {
    /// The rotation that shows a left-right flipped picture upright: the same angle the other way.
    fileprivate var mirrored: VideoRotation {
        switch self {
        case .deg0: .deg0
        case .deg90: .deg270
        case .deg180: .deg180
        case .deg270: .deg90
        }
    }
}
