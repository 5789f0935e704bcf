/// How many bytes may be in flight, and how much the encoder should back off when more are:
/// libwebrtc's congestion window (goog_cc_network_control.cc, `UpdateCongestionWindowSize`)
/// with its `CongestionWindowPushbackController`.
///
/// The window is the target rate times (the smallest recent feedback RTT + 350 ms of accepted
/// queue), averaged with the previous window and at least two full-size packets. When the bytes
/// in flight exceed it the encoder's share shrinks by 5 % per update (10 % above 1.5 windows),
/// grows back by 5 % while below, and is restored when the link is nearly empty (< 10 %); it
/// never pushes below 30 kbit/s unless the target itself is lower.
struct CongestionWindow: Sendable {
    static let acceptedQueueNs: Int64 = 350_000_000
    static let minWindowBytes = 2 * 1500
    static let rttWindowCount = 32
    static let minPushbackBitrateBps = 30_000.0

    private(set) var windowBytes: Int?
    private(set) var encodingRateRatio = 1.0
    /// The largest feedback RTT of each of the last 32 feedback messages.
    private var feedbackMaxRTTs: [Int64] = []

    /// The mean of the recent per-feedback RTTs, libwebrtc's RTT for the delay-based controller
    /// when only transport feedback is available.
    var meanFeedbackRTTNs: Int64? {
        feedbackMaxRTTs.isEmpty ? nil : feedbackMaxRTTs.reduce(0, +) / Int64(feedbackMaxRTTs.count)
    }

    mutating func addFeedbackRTT(_ rttNs: Int64) {
        feedbackMaxRTTs.append(rttNs)
        if feedbackMaxRTTs.count > Self.rttWindowCount {
            feedbackMaxRTTs.removeFirst()
        }
    }

    /// Recomputes the window for `targetBps`; a no-op before any feedback RTT.
    mutating func update(targetBps: Double) {
        guard let minRTTNs = feedbackMaxRTTs.min() else { return }
        let windowNs = minRTTNs + Self.acceptedQueueNs
        var bytes = Int(targetBps * Double(windowNs) / 8e9)
        if let windowBytes {
            bytes = (bytes + windowBytes) / 2
        }
        windowBytes = max(Self.minWindowBytes, bytes)
    }

    /// The encoder's share of `targetBps` given the bytes in flight.
    mutating func pushbackTarget(_ targetBps: Double, bytesInFlight: Int) -> Double {
        guard let windowBytes else { return targetBps }
        let fillRatio = Double(bytesInFlight) / Double(windowBytes)
        if fillRatio > 1.5 {
            encodingRateRatio *= 0.9
        } else if fillRatio > 1 {
            encodingRateRatio *= 0.95
        } else if fillRatio < 0.1 {
            encodingRateRatio = 1
        } else {
            encodingRateRatio = min(encodingRateRatio * 1.05, 1)
        }
        let adjustedBps = targetBps * encodingRateRatio
        return adjustedBps < Self.minPushbackBitrateBps ? min(targetBps, Self.minPushbackBitrateBps) : adjustedBps
    }
}
