/// When the sender's next report (SR + SDES) is due: none before the first media packet, then
/// every second on average, each interval drawn from [0.5, 1.5] times the mean (RFC 3550
/// §6.3.1) so that senders do not synchronise.
struct RTCPReportSchedule<Random: RandomNumberGenerator> {
    static var meanIntervalNs: Int64 { 1_000_000_000 }

    private(set) var nextReportNs: Int64?
    private var random: Random

    init(random: Random) {
        self.random = random
    }

    /// Media started: the first report goes with it.
    mutating func mediaStarted(atNs nowNs: Int64) {
        if nextReportNs == nil { nextReportNs = nowNs }
    }

    /// True when a report is due; the next one is then scheduled.
    mutating func takeDueReport(nowNs: Int64) -> Bool {
        guard let due = nextReportNs, nowNs >= due else { return false }
        let factor = Double.random(in: 0.5...1.5, using: &random)
        nextReportNs = nowNs + Int64(factor * Double(Self.meanIntervalNs))
        return true
    }
}
