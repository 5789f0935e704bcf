import MediaCore

/// Round-trip time from receiver reports (RFC 3550 §6.4.1): RTT = arrival − DLSR − the send
/// time of the SR named by LSR. The send times of recent SRs are kept in a ring (Pion keeps 5),
/// so a report that answers an older SR still counts; they are read on our monotonic clock, so
/// only the receiver's delay (DLSR) comes from its clock.
struct RoundTripTimeEstimator {
    static let reportsRemembered = 16
    static let minimumNs: Int64 = 1_000_000

    private var reports: [(lastSenderReport: UInt32, sentNs: Int64)] = []
    private var nextReport = 0
    private var samples = LatencyHistogram()
    private(set) var lastNs: Int64?

    init() {
        reports.reserveCapacity(Self.reportsRemembered)
    }

    /// Records an SR as it leaves: `middleBits` is the middle 32 bits of its NTP timestamp,
    /// which a receiver echoes as LSR.
    mutating func senderReportSent(middleBits: UInt32, atNs sentNs: Int64) {
        if reports.count < Self.reportsRemembered {
            reports.append((middleBits, sentNs))
        } else {
            reports[nextReport] = (middleBits, sentNs)
        }
        nextReport = (nextReport + 1) % Self.reportsRemembered
    }

    /// The RTT a report block gives, if it names an SR we remember; also recorded.
    mutating func onReportBlock(lastSenderReport: UInt32, delaySinceLastSenderReport: UInt32, arrivalNs: Int64) -> Int64? {
        guard lastSenderReport != 0, let report = reports.first(where: { $0.lastSenderReport == lastSenderReport }) else { return nil }
        let delayNs = Int64(delaySinceLastSenderReport) * 1_000_000_000 / 65_536
        let rttNs = max(Self.minimumNs, arrivalNs - report.sentNs - delayNs)
        lastNs = rttNs
        samples.record(nanoseconds: rttNs)
        return rttNs
    }

    /// The median over the run, in ms; nil before the first sample.
    var medianMs: Double? { samples.percentileMs(50) }
}
