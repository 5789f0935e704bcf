/// Maps a capturer's own clock onto the system monotonic clock, as libwebrtc's
/// `rtc::TimestampAligner` (rtc_base/timestamp_aligner.cc) does.
///
/// The capturer's timestamps are taken as accurate in their own scale, while the system time
/// a frame is received at carries the delivery delay as noise. So the output is the capture
/// time plus the average of `system - capture`: a plain mean over the first frames, then a
/// running average over the last 100. Clock drift (the slope) is ignored, as libwebrtc argues:
/// it stays small over the averaging window. The output is then clipped:
/// - never later than the system time the frame arrived at (no timestamps from the future);
///   the excess is remembered as a bias so the offset does not keep running ahead;
/// - at least 1 ms after the previous output, so timestamps strictly increase (unless the
///   frames themselves arrive less than 1 ms apart, when the first rule wins).
/// A difference more than 300 ms off the average (a clock reset, an unplugged camera, a
/// suspended process) restarts the averaging.
public struct TimestampAligner: Sendable {
    /// libwebrtc's `kWindowSize`.
    public static let windowFrameCount: Int64 = 100
    /// libwebrtc's `kResetThresholdUs`, in nanoseconds.
    public static let resetThresholdNs: Int64 = 300_000_000
    /// libwebrtc's `kMinFrameIntervalUs`, in nanoseconds.
    public static let minimumIntervalNs: Int64 = 1_000_000

    private var offsetNs: Int64 = 0
    private var framesSeen: Int64 = 0
    private var clipBiasNs: Int64 = 0
    private var previousOutputNs: Int64?

    public init() {}

    /// The capture time on the system clock for a frame the capturer stamped
    /// `captureTimestampNs` and that arrived at `systemTimeNs` (monotonic).
    public mutating func translate(captureTimestampNs: Int64, systemTimeNs: Int64) -> Int64 {
        let filteredNs = captureTimestampNs &+ updateOffset(captureTimestampNs: captureTimestampNs, systemTimeNs: systemTimeNs)
        let outputNs = clip(filteredNs, systemTimeNs: systemTimeNs)
        previousOutputNs = outputNs
        return outputNs
    }

    private mutating func updateOffset(captureTimestampNs: Int64, systemTimeNs: Int64) -> Int64 {
        let differenceNs = systemTimeNs &- captureTimestampNs
        let errorNs = differenceNs &- offsetNs
        // Also taken for the very first frame, whose error is the whole offset.
        if errorNs.magnitude > Self.resetThresholdNs.magnitude {
            framesSeen = 0
            clipBiasNs = 0
        }
        if framesSeen < Self.windowFrameCount {
            framesSeen += 1
        }
        offsetNs = offsetNs &+ errorNs / framesSeen
        return offsetNs
    }

    private mutating func clip(_ filteredNs: Int64, systemTimeNs: Int64) -> Int64 {
        var timeNs = filteredNs &- clipBiasNs
        if timeNs > systemTimeNs {
            clipBiasNs = clipBiasNs &+ (timeNs - systemTimeNs)
            timeNs = systemTimeNs
        } else if let previousOutputNs, timeNs < previousOutputNs &+ Self.minimumIntervalNs {
            timeNs = min(previousOutputNs &+ Self.minimumIntervalNs, systemTimeNs)
        }
        return timeNs
    }
}
