/// The packets sent recently, by transport-wide sequence number, so that feedback can be matched
/// with send times and sizes; and the bytes in flight.
///
/// A fixed ring indexed by sequence number: adding a packet allocates nothing. A packet is in
/// flight until feedback covers its sequence number or a later one (received or lost), so a
/// lost feedback message does not leave bytes in flight for ever.
struct SentPacketHistory: Sendable {
    struct Entry: Sendable {
        var sequenceNumber: Int64 = -1
        var sendTimeNs: Int64 = 0
        var sizeBytes = 0
        var probeClusterID: Int?
        /// Bytes sent up to and including this packet.
        var cumulativeBytes: Int64 = 0
        var isReported = false
    }

    private var entries: [Entry]
    private let mask: Int64
    private var totalSentBytes: Int64 = 0
    private var highestReportedSequenceNumber: Int64 = -1
    private var reportedCumulativeBytes: Int64 = 0

    /// `capacity` is rounded up to a power of two. 4096 packets of 1200 bytes hold 20 s at
    /// 2 Mbit/s and 2.6 s at 15 Mbit/s: feedback older than that says nothing useful.
    init(capacity: Int = 4096) {
        var size = 1
        while size < capacity {
            size <<= 1
        }
        entries = Array(repeating: Entry(), count: size)
        mask = Int64(size - 1)
    }

    var bytesInFlight: Int { Int(totalSentBytes - reportedCumulativeBytes) }

    mutating func add(_ packet: SentPacket) {
        totalSentBytes += Int64(packet.sizeBytes)
        entries[Int(packet.sequenceNumber & mask)] = Entry(
            sequenceNumber: packet.sequenceNumber, sendTimeNs: packet.sendTimeNs, sizeBytes: packet.sizeBytes,
            probeClusterID: packet.probeClusterID, cumulativeBytes: totalSentBytes)
    }

    /// The entry for a reported sequence number, the first time it is reported; nil if it is
    /// unknown (never sent, or too old) or was reported before.
    mutating func takeReport(sequenceNumber: Int64) -> Entry? {
        let index = Int(sequenceNumber & mask)
        guard entries[index].sequenceNumber == sequenceNumber, !entries[index].isReported else { return nil }
        entries[index].isReported = true
        let entry = entries[index]
        if sequenceNumber > highestReportedSequenceNumber {
            highestReportedSequenceNumber = sequenceNumber
            reportedCumulativeBytes = entry.cumulativeBytes
        }
        return entry
    }
}
