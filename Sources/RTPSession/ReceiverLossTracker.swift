import RTCP

/// Loss between consecutive receiver reports about one of our streams (RFC 3550 §6.4.1): the
/// growth of the extended highest sequence number and of the cumulative lost count, per
/// reporter and stream.
struct ReceiverLossTracker {
    static let maximumEntries = 16

    private var previous: [(reporter: UInt32, ssrc: UInt32, highest: UInt32, lost: Int32)] = []

    mutating func update(reporter: UInt32, block: RTCPReportBlock) -> (lost: Int, expected: Int)? {
        let index = previous.firstIndex { $0.reporter == reporter && $0.ssrc == block.ssrc }
        defer {
            let entry = (reporter, block.ssrc, block.extendedHighestSequenceNumber, block.cumulativeLost)
            if let index {
                previous[index] = entry
            } else {
                if previous.count == Self.maximumEntries { previous.removeFirst() }
                previous.append(entry)
            }
        }
        guard let index else { return nil }
        let last = previous[index]
        let expected = Int(Int64(block.extendedHighestSequenceNumber) - Int64(last.highest))
        guard expected > 0 else { return nil }
        let lost = max(0, min(expected, Int(block.cumulativeLost) - Int(last.lost)))
        return (lost, expected)
    }
}
