/// Caps the frame rate on a deadline grid, as libwebrtc's `FramerateController::ShouldDropFrame`
/// (common_video/framerate_controller.cc, used by `VideoAdapter`). Decisions depend on frame
/// timestamps only, never on when frames arrive, so they can be tested as pure functions.
///
/// The libwebrtc grid, kept as is:
/// - the first frame is kept and sets the first deadline;
/// - a frame before the deadline is early and dropped;
/// - a kept frame moves the deadline on by exactly one output interval, so the output rate
///   is the cap over any stretch, whatever the ratio to the input rate;
/// - a frame two or more intervals away from the deadline (a pause, a clock jump) restarts
///   the grid at that frame instead of letting a burst through to catch up;
/// - a cap below 0.5 fps (`kMinFramerate`) drops every frame.
///
/// One deliberate difference, in where the deadline sits. libwebrtc puts the first one half an
/// *output* interval after the first frame. When the cap divides the input rate (30→15, 60→30)
/// that lands exactly on an input frame, so which frames survive hangs on microseconds of
/// jitter. Here the deadline sits half an *input* interval before the frame that is due: the
/// same point as libwebrtc's when the input runs at the cap, and midway between two input
/// frames whenever the cap divides the input rate, so 30→15 keeps every second frame and
/// 30→10 every third under timestamp jitter of up to a quarter of an input interval. The
/// input interval is a running average of the gaps between frames.
public struct FrameRateLimiter: Sendable {
    /// libwebrtc's `kMinFramerate`: a cap below this drops every frame.
    public static let minimumFps = 0.5

    private enum Cap: Equatable {
        case none
        case dropAll
        case intervalNs(Int64)
    }

    /// The cap in frames per second; nil means no cap.
    public private(set) var maxFps: Double?
    private var cap: Cap = .none
    /// The nominal time of the next frame to keep, on the input's clock.
    private var dueNs: Int64?
    /// Running average of the gap between input frames.
    private var inputIntervalNs: Int64?
    private var previousTimestampNs: Int64?

    /// Weight of a new gap in the input-interval average (1/8): steady within a few frames,
    /// and a single late frame moves it little.
    private static let averagingShift: Int64 = 3

    public init(maxFps: Double? = nil) {
        setMaxFps(maxFps)
    }

    /// Changes the cap; nil or infinity removes it, below 0.5 (or NaN) drops every frame.
    /// A different cap restarts the grid at the next frame, as `VideoAdapter::OnOutputFormatRequest`
    /// resets its controller.
    public mutating func setMaxFps(_ fps: Double?) {
        let newCap: Cap
        if let fps {
            if !(fps >= Self.minimumFps) {
                newCap = .dropAll
            } else {
                // A cap so high that the interval rounds to 0 ns throttles nothing, as in libwebrtc.
                let intervalNs = fps.isFinite ? Int64(1e9 / fps) : 0
                newCap = intervalNs > 0 ? .intervalNs(intervalNs) : .none
            }
        } else {
            newCap = .none
        }
        maxFps = fps
        guard newCap != cap else { return }
        cap = newCap
        dueNs = nil
        inputIntervalNs = nil
    }

    /// Decides one frame; call it for every input frame in order. Returns true when the
    /// frame must be dropped to hold the cap. Timestamp arithmetic wraps rather than traps,
    /// so absurd timestamps only restart the grid.
    public mutating func shouldDropFrame(timestampNs: Int64) -> Bool {
        defer { previousTimestampNs = timestampNs }
        let outputIntervalNs: Int64
        switch cap {
        case .none: return false
        case .dropAll: return true
        case .intervalNs(let interval): outputIntervalNs = interval
        }
        updateInputInterval(timestampNs: timestampNs, outputIntervalNs: outputIntervalNs)

        if let dueNs {
            let halfInputIntervalNs = min(inputIntervalNs ?? outputIntervalNs, outputIntervalNs) / 2
            let untilDeadlineNs = dueNs &- halfInputIntervalNs &- timestampNs
            if untilDeadlineNs.magnitude < 2 * outputIntervalNs.magnitude {
                if untilDeadlineNs > 0 { return true }
                self.dueNs = dueNs &+ outputIntervalNs
                return false
            }
        }
        // First frame, or far off the grid: keep it and start the grid here.
        dueNs = timestampNs &+ outputIntervalNs
        return false
    }

    /// Averages the gaps between consecutive frames, ignoring ones that cannot be a frame
    /// interval at this cap (reordering, pauses), so a pause does not widen the tolerance.
    private mutating func updateInputInterval(timestampNs: Int64, outputIntervalNs: Int64) {
        guard let previousTimestampNs else { return }
        let gapNs = timestampNs &- previousTimestampNs
        guard gapNs > 0, gapNs < 2 * outputIntervalNs else { return }
        if let average = inputIntervalNs {
            inputIntervalNs = average + (gapNs - average) >> Self.averagingShift
        } else {
            inputIntervalNs = gapNs
        }
    }
}
