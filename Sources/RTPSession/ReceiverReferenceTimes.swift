import RTCP

/// The receivers' reference times (RFC 3611 §4.4, RRTR) waiting for our answer, DLRR (§4.5),
/// which tells a receiver that sends no media its round-trip time: it subtracts the LRR it
/// sent and our delay from the DLRR's arrival. Browsers need that RTT before they map RTP time
/// to capture time from our sender reports (libwebrtc's receiver waits for a valid RTT), which
/// is what `requestVideoFrameCallback` reports as a frame's `captureTime`.
///
/// Each RRTR is answered once, in the next report, as libwebrtc's sender does; a receiver
/// sends a new one with every report. At most `maximumReceivers` are kept, the newest winning.
struct ReceiverReferenceTimes {
    static let maximumReceivers = 8

    private var pending: [(ssrc: UInt32, lastReceiverReport: UInt32, arrivalNs: Int64)] = []

    init() {
        pending.reserveCapacity(Self.maximumReceivers)
    }

    /// An RRTR from `ssrc` arrived at `arrivalNs`; a newer one from the same receiver replaces it.
    mutating func received(_ time: NTPTimestamp, from ssrc: UInt32, arrivalNs: Int64) {
        pending.removeAll { $0.ssrc == ssrc }
        if pending.count == Self.maximumReceivers { pending.removeFirst() }
        pending.append((ssrc, time.middle32Bits, arrivalNs))
    }

    /// The DLRR block answering every RRTR waiting, as of `nowNs`; nil when none waits.
    mutating func takeAnswer(nowNs: Int64) -> RTCPExtendedReport.Block? {
        guard !pending.isEmpty else { return nil }
        defer { pending.removeAll(keepingCapacity: true) }
        return .delaySinceLastReceiverReport(pending.map { entry in
            RTCPExtendedReport.DelaySinceLastReceiverReport(
                ssrc: entry.ssrc, lastReceiverReport: entry.lastReceiverReport,
                delay: UInt32(clamping: max(0, nowNs - entry.arrivalNs) * 65_536 / 1_000_000_000))
        })
    }
}
