import Testing
@testable import RTPSession

/// The NACK responder against a history of sent packets, the way pion/interceptor tests its
/// responder: a fake clock, packets recorded as sent, decisions checked one by one.
@Suite struct NACKResponderTests {
    static let ms: Int64 = 1_000_000
    static let rttNs = 50 * ms
    /// 10 000 bytes per 500 ms window.
    static let targetBitrateBps: Int64 = 160_000

    /// A store and history holding 20 packets of 1000 bytes numbered from 65_530, sent at 1 s.
    final class Fixture {
        let store = PacketStore(slotCapacity: 16, maximumSlotCount: 2_000)
        var history = PacketHistory()
        var responder = NACKResponder()
        var slots: [Int] = []

        init() throws {
            slots = try sendMedia(count: 20, from: 65_530, sentNs: { _ in 1_000 * NACKResponderTests.ms }, store: store, history: &history)
        }

        /// A request at `nowNs`, handled as the session does: an answer is recorded against the
        /// packet, and its copy queued.
        func nack(
            _ sequenceNumber: UInt16, atNs nowNs: Int64, targetBitrateBps: Int64 = NACKResponderTests.targetBitrateBps,
            extraBytes: Int = 0
        ) -> NACKResponder.Decision {
            let decision = responder.decide(
                sequenceNumber: sequenceNumber, nowNs: nowNs, roundTripTimeNs: NACKResponderTests.rttNs,
                targetBitrateBps: targetBitrateBps, extraBytes: extraBytes, history: history, store: store)
            if case .resend(let slot) = decision {
                store[slot].lastAnsweredRequestNs = nowNs
                store.queueCopy(slot)
            }
            return decision
        }

        /// The queued copy of `slot` left the pacer.
        func sent(_ slot: Int) {
            store.takeQueuedCopy(slot)
        }
    }

    @Test func theFirstNACKIsAnsweredAtOnce() throws {
        let fixture = try Fixture()
        // The NACK of a loss found by the next packet of the same burst comes back well within
        // 5 ms + RTT of the original; it is the first request and must be answered.
        #expect(fixture.nack(65_531, atNs: 1_001 * Self.ms) == .resend(slot: fixture.slots[1]))
    }

    /// A repeat within three quarters of an RTT of the answered request was sent before the repair
    /// could arrive; one after that may mean the repair was lost, and is answered.
    @Test func aRepeatIsAnsweredOnceTheRepairCouldHaveBeenLost() throws {
        let fixture = try Fixture()
        let slot = fixture.slots[3]
        #expect(fixture.nack(65_533, atNs: 1_040 * Self.ms) == .resend(slot: slot))
        fixture.sent(slot)
        // RTT 50 ms: repeats before 1_077.5 ms are duplicates.
        #expect(fixture.nack(65_533, atNs: 1_060 * Self.ms) == .tooSoon)
        #expect(fixture.nack(65_533, atNs: 1_077_500_000 - 1) == .tooSoon)
        #expect(fixture.nack(65_533, atNs: 1_077_500_000) == .resend(slot: slot))
        fixture.sent(slot)
        #expect(fixture.nack(65_533, atNs: 1_110 * Self.ms) == .tooSoon)
        #expect(fixture.nack(65_533, atNs: 1_115 * Self.ms) == .resend(slot: slot))
    }

    /// GStreamer asks again one repair round trip after it first asked: about an RTT later at
    /// the sender, however late the pacer sent the repair. The old rule (5 ms + RTT from the
    /// repair's send) refused it, and the frame waited for a keyframe.
    @Test func aReceiverAskingAgainOneRoundTripLaterIsAnswered() throws {
        let fixture = try Fixture()
        let slot = fixture.slots[5]
        #expect(fixture.nack(65_535, atNs: 1_100 * Self.ms) == .resend(slot: slot))
        fixture.sent(slot)  // the repair left at once, and was lost on the way
        #expect(fixture.nack(65_535, atNs: 1_150 * Self.ms) == .resend(slot: slot))
    }

    @Test func shortRoundTripsStillRefuseRepeatsWithin5ms() throws {
        #expect(NACKResponder.repeatIntervalNs(roundTripTimeNs: 0) == 5 * Self.ms)
        #expect(NACKResponder.repeatIntervalNs(roundTripTimeNs: 2 * Self.ms) == 5 * Self.ms)
        #expect(NACKResponder.repeatIntervalNs(roundTripTimeNs: 200 * Self.ms) == 150 * Self.ms)
    }

    @Test func aPacketIsNotResentWhileACopyWaitsInThePacer() throws {
        let fixture = try Fixture()
        let slot = fixture.slots[0]
        #expect(fixture.nack(65_530, atNs: 1_060 * Self.ms) == .resend(slot: slot))
        // Long after any RTT, but the copy has not left yet.
        #expect(fixture.nack(65_530, atNs: 3_000 * Self.ms) == .tooSoon)
        // A padding copy of a packet never resent blocks it the same way.
        fixture.store.queueCopy(fixture.slots[1])
        #expect(fixture.nack(65_531, atNs: 3_000 * Self.ms) == .tooSoon)
        fixture.store.takeQueuedCopy(fixture.slots[1])
        #expect(fixture.nack(65_531, atNs: 3_000 * Self.ms) == .resend(slot: fixture.slots[1]))
    }

    @Test func packetsNotInTheHistoryAreReportedMissing() throws {
        let fixture = try Fixture()
        #expect(fixture.nack(65_529, atNs: 1_060 * Self.ms) == .notInHistory)
        #expect(fixture.nack(14, atNs: 1_060 * Self.ms) == .notInHistory)
        #expect(fixture.nack(30_000, atNs: 1_060 * Self.ms) == .notInHistory)
        // Once expired (a gap restarts the history here), the old packets are missing too.
        try sendMedia(count: 1, from: 500, sentNs: { _ in 2_000 * Self.ms }, store: fixture.store, history: &fixture.history)
        #expect(fixture.nack(65_530, atNs: 2_100 * Self.ms) == .notInHistory)
        #expect(fixture.nack(500, atNs: 2_100 * Self.ms) == .resend(slot: fixture.history.slot(for: 500) ?? -1))
    }

    /// An FEC packet is never repaired: on RTX it would pass for a media packet, and what it
    /// protects can be asked for itself.
    @Test func anFECPacketIsNotSentAgain() throws {
        let fixture = try Fixture()
        fixture.store[fixture.slots[5]].isFEC = true
        #expect(fixture.nack(65_535, atNs: 1_040 * Self.ms) == .fecPacket)
        #expect(fixture.nack(65_534, atNs: 1_040 * Self.ms) == .resend(slot: fixture.slots[4]))
    }

    @Test func retransmissionsStayWithinTheBudget() throws {
        let fixture = try Fixture()
        let startNs = 1_100 * Self.ms
        // 160 kbit/s over 500 ms is 10 000 bytes: ten packets of 1000 bytes.
        for index in 0..<10 {
            let sequenceNumber = 65_530 &+ UInt16(index)
            #expect(fixture.nack(sequenceNumber, atNs: startNs + Int64(index) * Self.ms) == .resend(slot: fixture.slots[index]))
        }
        #expect(fixture.nack(4, atNs: startNs + 10 * Self.ms) == .overBudget)
        #expect(fixture.nack(5, atNs: startNs + 499 * Self.ms) == .overBudget)
        // 500 ms after the first resend its bytes leave the window: one more fits.
        #expect(fixture.nack(5, atNs: startNs + 500 * Self.ms) == .resend(slot: fixture.slots[11]))
        #expect(fixture.nack(6, atNs: startNs + 500 * Self.ms) == .overBudget)
        #expect(fixture.nack(6, atNs: startNs + 501 * Self.ms) == .resend(slot: fixture.slots[12]))
    }

    @Test func aRequestRefusedAsTooSoonCostsNoBudget() throws {
        let fixture = try Fixture()
        let nowNs = 1_100 * Self.ms
        #expect(fixture.nack(65_530, atNs: nowNs) == .resend(slot: fixture.slots[0]))
        for _ in 0..<100 {
            #expect(fixture.nack(65_530, atNs: nowNs) == .tooSoon)
        }
        // Nine more packets still fit in the 10 000 bytes of the window.
        for index in 1..<10 {
            #expect(fixture.nack(65_530 &+ UInt16(index), atNs: nowNs) == .resend(slot: fixture.slots[index]))
        }
        #expect(fixture.nack(4, atNs: nowNs) == .overBudget)
    }

    @Test func extraBytesCountAgainstTheBudget() throws {
        let fixture = try Fixture()
        let nowNs = 1_100 * Self.ms
        // With 250 bytes of RTX and SRTP on each, eight fit in 10 000 bytes.
        for index in 0..<8 {
            #expect(fixture.nack(65_530 &+ UInt16(index), atNs: nowNs, extraBytes: 250) == .resend(slot: fixture.slots[index]))
        }
        #expect(fixture.nack(2, atNs: nowNs, extraBytes: 250) == .overBudget)
    }

    @Test func nothingIsResentWithoutATargetRate() throws {
        let fixture = try Fixture()
        #expect(fixture.nack(65_530, atNs: 1_100 * Self.ms, targetBitrateBps: 0) == .overBudget)
    }
}
