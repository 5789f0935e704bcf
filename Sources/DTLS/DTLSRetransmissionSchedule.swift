/// When a DTLS endpoint resends an unanswered handshake flight (RFC 6347 section 4.2.4.1): after
/// `initialMs`, then after twice the last wait, never waiting longer than `maximumMs`. OpenSSL
/// gives up after 12 retransmissions.
///
/// RFC 6347 suggests 1 s and 60 s. libwebrtc starts from twice the ICE round-trip time, clamped
/// to 50…3000 ms, which a transport that knows the RTT can pass here.
///
/// OpenSSL measures the waits on the real clock and takes any wait under 15 ms as already over;
/// its read path then retransmits and checks again, so waits start at `minimumMs`.
public struct DTLSRetransmissionSchedule: Sendable, Hashable {
    /// libwebrtc's floor for the first wait.
    public static let minimumMs = 50
    /// What OpenSSL's microsecond timer holds comfortably.
    public static let ceilingMs = 600_000

    public var initialMs: Int
    public var maximumMs: Int

    public init(initialMs: Int = 1_000, maximumMs: Int = 60_000) {
        self.initialMs = initialMs
        self.maximumMs = maximumMs
    }

    /// The wait in microseconds after one of `previousUs` (0 when a flight is first sent), as
    /// OpenSSL's `DTLS_timer_cb` wants it.
    func nextWaitUs(after previousUs: UInt32) -> UInt32 {
        let maximumUs = UInt32(clamping: maximumMs * 1_000)
        guard previousUs > 0 else { return min(UInt32(clamping: initialMs * 1_000), maximumUs) }
        let (doubled, overflow) = previousUs.multipliedReportingOverflow(by: 2)
        return overflow ? maximumUs : min(doubled, maximumUs)
    }
}
