import DequeModule

/// Keeps retransmissions under the target bitrate over a sliding 500 ms window (libwebrtc's
/// `RtpSenderEgress` retransmission rate limit): a receiver that asks for everything again
/// cannot make the sender exceed the rate the path carries.
struct RetransmissionBudget {
    static let windowNs: Int64 = 500_000_000

    private var sends = Deque<(timeNs: Int64, bytes: Int)>()
    private var bytesInWindow = 0

    /// Whether `bytes` more may go now at `targetBitrateBps`; if so they are counted.
    mutating func take(_ bytes: Int, targetBitrateBps: Int64, nowNs: Int64) -> Bool {
        while let oldest = sends.first, nowNs - oldest.timeNs >= Self.windowNs {
            bytesInWindow -= oldest.bytes
            sends.removeFirst()
        }
        let allowed = targetBitrateBps * Self.windowNs / 8_000_000_000
        guard Int64(bytesInWindow + bytes) <= allowed else { return false }
        sends.append((nowNs, bytes))
        bytesInWindow += bytes
        return true
    }
}
