import Testing
@testable import RTPSession

@Suite struct PacketStoreTests {
    @Test func growsUpToItsMaximumThenRefuses() {
        let store = PacketStore(slotCapacity: 100, maximumSlotCount: 4, initialSlotCount: 2)
        #expect(store.slotCount == 2)
        #expect(store.canStore(4))
        #expect(!store.canStore(5))
        let slots = (0..<4).compactMap { _ in store.allocate() }
        #expect(Set(slots).count == 4)
        #expect(store.slotCount == 4)
        #expect(store.usedSlotCount == 4)
        #expect(store.allocate() == nil)
        #expect(store.canStore(0))
        #expect(!store.canStore(1))
    }

    @Test func aSlotIsFreedOnlyWhenNothingRefersToIt() throws {
        let store = PacketStore(slotCapacity: 100, maximumSlotCount: 1, initialSlotCount: 1)
        let slot = try #require(store.allocate())
        store.queueCopy(slot)
        store.enterHistory(slot)
        store.releaseIfUnused(slot)
        #expect(store.usedSlotCount == 1)
        store.takeQueuedCopy(slot)
        store.releaseIfUnused(slot)
        #expect(store.usedSlotCount == 1, "still in the history")
        store.queueCopy(slot)
        store.leaveHistory(slot)
        #expect(store.usedSlotCount == 1, "a copy still waits in the pacer")
        store.takeQueuedCopy(slot)
        store.releaseIfUnused(slot)
        #expect(store.usedSlotCount == 0)
        #expect(store.canStore(1))
    }

    @Test func aReusedSlotStartsWithAFreshEntry() throws {
        let store = PacketStore(slotCapacity: 64, maximumSlotCount: 1, initialSlotCount: 1)
        let slot = try #require(store.allocate())
        store[slot] = PacketStore.Entry(
            encodingIndex: 2, sequenceNumber: 7, captureTimeNs: 9, length: 30, headerLength: 12, isKeyframe: true, endsFrame: true,
            absoluteSendTimeOffset: 17, transportSequenceNumberOffset: 21)
        store[slot].firstSentNs = 1
        store[slot].lastAnsweredRequestNs = 2
        store.releaseIfUnused(slot)
        #expect(store.allocate() == slot)
        let entry = store[slot]
        #expect(entry.encodingIndex == 0 && entry.sequenceNumber == 0 && entry.length == 0 && entry.headerLength == 0)
        #expect(!entry.isKeyframe && !entry.endsFrame && !entry.isInHistory)
        #expect(entry.absoluteSendTimeOffset == nil && entry.transportSequenceNumberOffset == nil)
        #expect(entry.firstSentNs == nil && entry.lastAnsweredRequestNs == nil)
        #expect(entry.queuedCopies == 0)
    }

    /// Two copies of one packet leaving in the same batch release its slot twice; handing the slot
    /// out twice would let two packets overwrite each other.
    @Test func releasingTwiceFreesOnce() throws {
        let store = PacketStore(slotCapacity: 64, maximumSlotCount: 2, initialSlotCount: 2)
        let slot = try #require(store.allocate())
        store.releaseIfUnused(slot)
        store.releaseIfUnused(slot)
        #expect(store.usedSlotCount == 0)
        let first = try #require(store.allocate())
        let second = try #require(store.allocate())
        #expect(first != second)
        #expect(store.usedSlotCount == 2)
        #expect(store.allocate() == nil)
    }

    @Test func releasingASlotNeverAllocatedChangesNothing() throws {
        let store = PacketStore(slotCapacity: 64, maximumSlotCount: 2, initialSlotCount: 2)
        store.releaseIfUnused(1)
        #expect(store.usedSlotCount == 0)
        let slots = [try #require(store.allocate()), try #require(store.allocate())]
        #expect(Set(slots) == [0, 1])
        #expect(store.allocate() == nil)
    }

    @Test func packetIsTheWrittenPrefixOfTheBuffer() throws {
        let store = PacketStore(slotCapacity: 32, maximumSlotCount: 2, initialSlotCount: 1)
        let first = try #require(store.allocate())
        let second = try #require(store.allocate())
        #expect(store.buffer(first).count == 32)
        store.buffer(first).copyBytes(from: [1, 2, 3, 4, 5] as [UInt8])
        store.buffer(second).copyBytes(from: [9, 9] as [UInt8])
        store[first].length = 4
        store[second].length = 2
        #expect(Array(store.packet(first)) == [1, 2, 3, 4])
        #expect(Array(store.packet(second)) == [9, 9])
    }
}
