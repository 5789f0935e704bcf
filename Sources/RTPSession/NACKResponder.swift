/// Decides what a generic NACK (RFC 4585 §6.2.1) gets, packet by packet, as libwebrtc's
/// `RTPSender::OnReceivedNack` does:
/// - a packet no longer in the history cannot be sent again (counted);
/// - a packet is not resent while a copy of it still waits in the pacer, nor again within
///   5 ms + RTT of its last resend: a receiver that NACKs a packet that arrived, or NACKs twice
///   before the repair could reach it, costs one resend at most. The first resend goes at once,
///   as libwebrtc's `RtpPacketHistory::VerifyRtt` lets it: a NACK comes back one RTT after the
///   original at the soonest, so timing it from the original would refuse losses found quickly;
/// - retransmissions stay within `RetransmissionBudget`.
struct NACKResponder {
    enum Decision: Equatable {
        case resend(slot: Int)
        case notInHistory
        case tooSoon
        case overBudget
    }

    static let minimumIntervalNs: Int64 = 5_000_000

    private var budget = RetransmissionBudget()

    mutating func decide(
        sequenceNumber: UInt16, nowNs: Int64, roundTripTimeNs: Int64, targetBitrateBps: Int64, extraBytes: Int,
        history: PacketHistory, store: PacketStore
    ) -> Decision {
        guard let slot = history.slot(for: sequenceNumber) else { return .notInHistory }
        let entry = store[slot]
        if entry.queuedCopies > 0 { return .tooSoon }
        if entry.timesSent > 1, let lastSentNs = entry.lastSentNs,
            nowNs - lastSentNs < Self.minimumIntervalNs + roundTripTimeNs
        {
            return .tooSoon
        }
        guard budget.take(entry.length + extraBytes, targetBitrateBps: targetBitrateBps, nowNs: nowNs) else {
            return .overBudget
        }
        return .resend(slot: slot)
    }
}
