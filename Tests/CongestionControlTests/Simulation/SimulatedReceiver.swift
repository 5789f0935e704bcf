import CongestionControl

/// The receiving end: it timestamps arrivals on its own clock (offset from the sender's and
/// rounded to TWCC's 250 µs), and builds transport feedback and receiver-report loss counts.
struct SimulatedReceiver {
    /// The receiver's clock runs this far from the sender's: only differences may matter.
    static let clockOffsetNs: Int64 = 12_345_678_901_234
    static let twccResolutionNs: Int64 = 250_000

    private var arrivals: [(sequenceNumber: Int64, receiveTimeNs: Int64)] = []
    private var highestReportedSequenceNumber: Int64 = -1
    private var highestReceivedSequenceNumber: Int64 = -1
    private var receivedCount = 0
    private var reportExpectedBase: Int64 = 0
    private var reportReceivedBase = 0

    mutating func receive(_ packet: SimulatedPacket, arrivalNs: Int64) {
        let receiverTimeNs = arrivalNs + Self.clockOffsetNs
        arrivals.append((packet.sequenceNumber, receiverTimeNs - receiverTimeNs % Self.twccResolutionNs))
        highestReceivedSequenceNumber = max(highestReceivedSequenceNumber, packet.sequenceNumber)
        receivedCount += 1
    }

    /// Feedback covering every sequence number from the last one reported up to the highest
    /// received (the missing ones as lost), or nil when nothing arrived since.
    mutating func makeFeedback(feedbackTimeNs: Int64) -> TransportFeedback? {
        guard !arrivals.isEmpty else { return nil }
        let first = highestReportedSequenceNumber + 1
        let last = highestReceivedSequenceNumber
        var reports = (first...last).map { TransportFeedback.PacketReport(sequenceNumber: $0, receiveTimeNs: nil) }
        for arrival in arrivals where arrival.sequenceNumber >= first {
            reports[Int(arrival.sequenceNumber - first)].receiveTimeNs = arrival.receiveTimeNs
        }
        arrivals.removeAll(keepingCapacity: true)
        highestReportedSequenceNumber = last
        return TransportFeedback(feedbackTimeNs: feedbackTimeNs, packets: reports)
    }

    /// A receiver report's loss since the previous one: (lost, expected).
    mutating func makeLossReport() -> (lost: Int, expected: Int) {
        let expectedTotal = highestReceivedSequenceNumber + 1
        let expected = Int(expectedTotal - reportExpectedBase)
        let received = receivedCount - reportReceivedBase
        reportExpectedBase = expectedTotal
        reportReceivedBase = receivedCount
        return (max(expected - received, 0), expected)
    }
}
