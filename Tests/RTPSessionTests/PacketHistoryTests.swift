import Testing
@testable import RTPSession

@Suite struct PacketHistoryTests {
    static let ms: Int64 = 1_000_000

    func makeStore() -> PacketStore {
        PacketStore(slotCapacity: 16, maximumSlotCount: 12_000)
    }

    @Test func findsPacketsBySequenceNumber() throws {
        let store = makeStore()
        var history = PacketHistory()
        #expect(history.slot(for: 0) == nil)
        let slots = try sendMedia(count: 5, from: 100, sentNs: { _ in 0 }, store: store, history: &history)
        #expect(history.count == 5)
        for (index, slot) in slots.enumerated() {
            #expect(history.slot(for: 100 + UInt16(index)) == slot)
        }
        #expect(history.slot(for: 99) == nil)
        #expect(history.slot(for: 105) == nil)
        #expect(slots.allSatisfy { store[$0].isInHistory })
    }

    @Test func lookupsWrapAround() throws {
        let store = makeStore()
        var history = PacketHistory()
        let slots = try sendMedia(count: 20, from: 65_530, sentNs: { _ in 0 }, store: store, history: &history)
        #expect(history.slot(for: 65_530) == slots[0])
        #expect(history.slot(for: 65_535) == slots[5])
        #expect(history.slot(for: 0) == slots[6])
        #expect(history.slot(for: 13) == slots[19])
        #expect(history.slot(for: 14) == nil)
        #expect(history.slot(for: 65_529) == nil)
        #expect(history.slot(for: 32_768) == nil)
    }

    @Test func expiryAcrossTheWrapKeepsLookupsRight() throws {
        let store = makeStore()
        var history = PacketHistory()
        let slots = try sendMedia(count: 700, from: 65_200, sentNs: { _ in 0 }, store: store, history: &history)
        history.expire(nowNs: 10_000 * Self.ms, roundTripTimeNs: 0, store: store)
        #expect(history.count == 600)
        // 100 gone: the oldest kept is 65_300; 65_535 is index 335, 0 is index 336.
        #expect(history.slot(for: 65_299) == nil)
        #expect(history.slot(for: 65_300) == slots[100])
        #expect(history.slot(for: 0) == slots[336])
        #expect(history.slot(for: 363) == slots[699])
        #expect(history.slot(for: 364) == nil)
    }

    @Test func packetsOlderThanOneSecondExpire() throws {
        let store = makeStore()
        var history = PacketHistory()
        // 2000 packets, one per millisecond.
        try sendMedia(count: 2_000, from: 0, sentNs: { Int64($0) * Self.ms }, store: store, history: &history)
        history.expire(nowNs: 1_999 * Self.ms, roundTripTimeNs: 0, store: store)
        // Sent before 999 ms: more than 1 s old. The one sent at 999 ms is exactly 1 s old and stays.
        #expect(history.count == 1_001)
        #expect(history.slot(for: 998) == nil)
        #expect(history.slot(for: 999) != nil)
        #expect(store.usedSlotCount == 1_001)
    }

    @Test func youngPacketsStayWhateverTheirNumber() throws {
        let store = makeStore()
        var history = PacketHistory()
        try sendMedia(count: 9_000, from: 0, sentNs: { _ in 0 }, store: store, history: &history)
        history.expire(nowNs: 999 * Self.ms, roundTripTimeNs: 0, store: store)
        #expect(history.count == 9_000)
    }

    @Test func theLast600StayWhateverTheirAge() throws {
        let store = makeStore()
        var history = PacketHistory()
        try sendMedia(count: 700, from: 40, sentNs: { _ in 0 }, store: store, history: &history)
        history.expire(nowNs: 3_600_000 * Self.ms, roundTripTimeNs: 0, store: store)
        #expect(history.count == 600)
        #expect(history.slot(for: 139) == nil)
        #expect(history.slot(for: 140) != nil)
        #expect(history.slot(for: 739) != nil)
        #expect(store.usedSlotCount == 600)
    }

    @Test func aLongRoundTripKeepsPacketsForThreeRoundTrips() throws {
        let store = makeStore()
        var history = PacketHistory()
        try sendMedia(count: 2_000, from: 0, sentNs: { Int64($0) * Self.ms }, store: store, history: &history)
        // RTT 500 ms: kept for 1.5 s, so everything sent from 499 ms on stays.
        history.expire(nowNs: 1_999 * Self.ms, roundTripTimeNs: 500 * Self.ms, store: store)
        #expect(history.count == 1_501)
        #expect(history.slot(for: 498) == nil)
        #expect(history.slot(for: 499) != nil)
        // RTT 200 ms: 3 × RTT is under a second, and the second rules.
        history.expire(nowNs: 1_999 * Self.ms, roundTripTimeNs: 200 * Self.ms, store: store)
        #expect(history.count == 1_001)
        // RTT 400 ms: 1.2 s.
        history.expire(nowNs: 2_199 * Self.ms, roundTripTimeNs: 400 * Self.ms, store: store)
        #expect(history.count == 1_001)
        #expect(history.slot(for: 999) != nil)
        history.expire(nowNs: 2_200 * Self.ms, roundTripTimeNs: 400 * Self.ms, store: store)
        #expect(history.slot(for: 999) == nil)
    }

    /// Even when more than 9600 packets leave between two expiries (a sender flat out), the
    /// oldest make room: the history never holds the store's every slot.
    @Test func neverMoreThan9600() throws {
        let store = makeStore()
        var history = PacketHistory()
        let slots = try sendMedia(count: 10_000, from: 60_000, sentNs: { _ in 0 }, store: store, history: &history)
        #expect(history.count == PacketHistory.maximumPackets)
        #expect(history.slot(for: 60_399) == nil)
        #expect(history.slot(for: 60_400) == slots[400])
        #expect(history.slot(for: 60_000 &+ 9_999) == slots[9_999])
        #expect(store.usedSlotCount == 9_600)
    }

    @Test func anExpiredPacketWithAQueuedCopyKeepsItsSlotUntilTheCopyLeaves() throws {
        let store = makeStore()
        var history = PacketHistory()
        let slots = try sendMedia(count: 601, from: 0, sentNs: { _ in 0 }, store: store, history: &history)
        store.queueCopy(slots[0])
        history.expire(nowNs: 2_000 * Self.ms, roundTripTimeNs: 0, store: store)
        #expect(history.count == 600)
        #expect(history.slot(for: 0) == nil)
        #expect(!store[slots[0]].isInHistory)
        #expect(store.usedSlotCount == 601)
        // The copy leaves; the session releases the slot.
        store.takeQueuedCopy(slots[0])
        store.releaseIfUnused(slots[0])
        #expect(store.usedSlotCount == 600)
    }

    @Test func aGapStartsTheHistoryOver() throws {
        let store = makeStore()
        var history = PacketHistory()
        try sendMedia(count: 10, from: 100, sentNs: { _ in 0 }, store: store, history: &history)
        let after = try sendMedia(count: 3, from: 200, sentNs: { _ in 0 }, store: store, history: &history)
        #expect(history.count == 3)
        #expect(history.slot(for: 100) == nil)
        #expect(history.slot(for: 109) == nil)
        #expect(history.slot(for: 200) == after[0])
        #expect(history.slot(for: 202) == after[2])
        #expect(store.usedSlotCount == 3)
    }

    @Test func newestComesNewestFirst() throws {
        let store = makeStore()
        var history = PacketHistory()
        let slots = try sendMedia(count: 10, from: 65_533, sentNs: { _ in 0 }, store: store, history: &history)
        #expect(Array(history.newest(3)) == [slots[9], slots[8], slots[7]])
        #expect(Array(history.newest(20)) == slots.reversed())
    }
}
