/// Decides what a generic NACK (RFC 4585 §6.2.1) gets, packet by packet:
/// - a packet no longer in the history cannot be sent again (counted);
/// - an FEC packet is never sent again, as libwebrtc marks its FEC packets not retransmittable:
///   a repair goes out of RED, on RTX as the media payload type, where a receiver would take its
///   parity bytes for VP8; the packets it protects can be asked for themselves;
/// - a packet is not resent while a copy of it still waits in the pacer;
/// - a request that repeats one already answered is answered again once the earlier repair
///   could have been lost: when it arrives at least three quarters of an RTT after the request
///   that was answered. A receiver asks again when the repair has not come one repair round
///   trip after its earlier request (GStreamer's `rtx-retry-timeout` is the round trip of
///   repairs as measured, Chromium's `NackRequester` waits an RTT since it last asked), so its
///   second request arrives about an RTT after its first, whatever the pacer did in between.
///   Sooner, the receiver asked again before our repair could reach it; that costs nothing;
/// - retransmissions stay within `RetransmissionBudget`, so a NACK flood cannot multiply the
///   send rate.
///
/// libwebrtc (`RtpPacketHistory`) refuses a packet within 5 ms + RTT of its *last send*: a
/// repair the pacer sent late then makes a receiver's timely second request look early, and
/// GStreamer's second request, about one RTT after its first, falls inside that window when the
/// first repair was lost, so the frame waits for a keyframe. GStreamer's own `rtprtxsend` answers
/// every request of a packet it still holds, which lets a receiver that asks in every RTCP
/// packet multiply the repairs; the budget is our bound instead. The first request is answered
/// at once, as libwebrtc's `VerifyRtt` lets it: a NACK comes back one RTT after the original at
/// the soonest, so timing it from the original would refuse losses found quickly.
struct NACKResponder {
    enum Decision: Equatable {
        case resend(slot: Int)
        case notInHistory
        case fecPacket
        case tooSoon
        case overBudget
    }

    /// Repeats of a request this close together are never answered twice, however short the RTT.
    static let minimumRepeatIntervalNs: Int64 = 5_000_000

    private var budget = RetransmissionBudget()

    /// How long after an answered request a repeat of it is answered again.
    static func repeatIntervalNs(roundTripTimeNs: Int64) -> Int64 {
        max(minimumRepeatIntervalNs, roundTripTimeNs * 3 / 4)
    }

    /// The decision for a request of `sequenceNumber` arriving at `nowNs`; the caller records a
    /// `resend` as the packet's answered request (`PacketStore.Entry.lastAnsweredRequestNs`).
    mutating func decide(
        sequenceNumber: UInt16, nowNs: Int64, roundTripTimeNs: Int64, targetBitrateBps: Int64, extraBytes: Int,
        history: PacketHistory, store: PacketStore
    ) -> Decision {
        guard let slot = history.slot(for: sequenceNumber) else { return .notInHistory }
        let entry = store[slot]
        if entry.isFEC { return .fecPacket }
        if entry.queuedCopies > 0 { return .tooSoon }
        if let answeredNs = entry.lastAnsweredRequestNs,
            nowNs - answeredNs < Self.repeatIntervalNs(roundTripTimeNs: roundTripTimeNs)
        {
            return .tooSoon
        }
        guard budget.take(entry.length + extraBytes, targetBitrateBps: targetBitrateBps, nowNs: nowNs) else {
            return .overBudget
        }
        return .resend(slot: slot)
    }
}
