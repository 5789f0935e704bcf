import RTCP
import RTP

/// Which frames carry abs-capture-time on their first packet, by the rule of libwebrtc's
/// `AbsoluteCaptureTimeSender::ShouldSendExtension` (modules/rtp_rtcp/source/
/// absolute_capture_time_sender.cc): the first frame; then a frame once more than a second has
/// passed since the last one that carried it (`kInterpolationMaxInterval`), or once a receiver
/// extrapolating from that one along the 90 kHz RTP clock would be more than 1 ms off
/// (`kInterpolationMaxError`, the error rounded to whole milliseconds): RTP time that stopped
/// following capture time. A stream of one SSRC, a fixed clock rate and a fixed offset leave
/// libwebrtc's other reasons (a new source, rate or offset) out. Keyframes carry it too, which
/// libwebrtc's video sender does not ask for: a receiver that joins late starts there.
///
/// Times are the sender's NTP clock, the one its sender reports use, so a receiver reads the same
/// capture time from either. The capture clock is ours, so the estimated capture clock offset is
/// 0, as libwebrtc's video sender writes it for its own captures.
struct AbsoluteCaptureTimeSchedule {
    static let maximumIntervalNs: Int64 = 1_000_000_000
    static let maximumErrorMs = 1.0

    let ntpClock: NTPClock
    private var lastSent: (captureTimestamp: UInt64, rtpTimestamp: UInt32, atNs: Int64)?

    init(ntpClock: NTPClock) {
        self.ntpClock = ntpClock
    }

    /// The value for a frame captured at `captureTimeNs` (monotonic) with `rtpTimestamp` on an
    /// RTP clock of `clockRate`, packetized at `nowNs`; nil when a receiver can work it out from
    /// the last one sent.
    func value(
        captureTimeNs: Int64, rtpTimestamp: UInt32, clockRate: Int64, isKeyframe: Bool, nowNs: Int64
    ) -> AbsoluteCaptureTime? {
        let ntp = ntpClock.timestamp(atMonotonicNs: captureTimeNs)
        let captureTimestamp = UInt64(ntp.seconds) << 32 | UInt64(ntp.fraction)
        let value = AbsoluteCaptureTime(captureTimestamp: captureTimestamp, estimatedCaptureClockOffset: 0)
        guard let lastSent, !isKeyframe, nowNs - lastSent.atNs <= Self.maximumIntervalNs else { return value }
        // libwebrtc's AbsoluteCaptureTimeInterpolator: the RTP ticks since, in Q32.32 seconds.
        let elapsed = Int64(bitPattern: UInt64(rtpTimestamp &- lastSent.rtpTimestamp) << 32) / clockRate
        let extrapolated = lastSent.captureTimestamp &+ UInt64(bitPattern: elapsed)
        let error = min(extrapolated &- captureTimestamp, captureTimestamp &- extrapolated)
        return (Double(error) * 1000 / 4_294_967_296).rounded() > Self.maximumErrorMs ? value : nil
    }

    /// `value` went out on the first packet of the frame with `rtpTimestamp`, packetized at `nowNs`.
    mutating func sent(_ value: AbsoluteCaptureTime, rtpTimestamp: UInt32, atNs nowNs: Int64) {
        lastSent = (value.captureTimestamp, rtpTimestamp, nowNs)
    }
}
