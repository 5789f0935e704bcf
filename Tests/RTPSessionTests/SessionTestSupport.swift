import MediaCore
import RTCP
import RTP
import Testing
@testable import RTPSession

/// The session of the byte-vector tests: SSRC 0x11223344, sequence numbers from 1000, no timestamp
/// offset, PictureIDs from 0x1234.
let vectorSession = RTPSessionParameters(
    ssrc: 0x1122_3344, initialSequenceNumber: 1000, timestampOffset: 0, initialPictureID: 0x1234)

/// A one-encoding session configuration for packetizer tests.
func sessionConfiguration(
    mtu: Int = 1200, session: RTPSessionParameters = vectorSession, extensions: HeaderExtensionIDs = HeaderExtensionIDs(),
    retransmission: Retransmission = .resend
) -> SendSessionConfiguration {
    SendSessionConfiguration(
        tuning: SenderTuning(mtu: mtu, retransmission: retransmission),
        encodings: [EncodingStreams(media: session, rtxSSRC: retransmission == .rtx ? session.ssrc &+ 1 : nil)],
        rtxPayloadType: retransmission == .rtx ? 97 : nil, extensions: extensions)
}

/// The NTP clock of the packetizer tests: monotonic 0 is 2023-11-14 22:13:20 UTC.
let vectorNTPClock = NTPClock(monotonicNs: 0, unixTimeNs: 1_700_000_000_000_000_000)

/// The packetizer of encoding 0 of a validated `configuration`.
func makePacketizer(_ configuration: SendSessionConfiguration, protectionOverhead: Int = 0) throws -> FramePacketizer {
    try configuration.validate(protectionOverhead: protectionOverhead)
    return try FramePacketizer(
        encodingIndex: 0, configuration: configuration, protectionOverhead: protectionOverhead, ntpClock: vectorNTPClock)
}

/// A packet the packetizer wrote, copied out of the store with what the store knows about it.
struct WrittenPacket {
    var slot: Int
    var bytes: [UInt8]
    var entry: PacketStore.Entry
}

/// Plans and writes `frame` as the session does at `nowNs` (its capture time unless given), and
/// reads each packet back from the store. The slots stay allocated: the caller releases them
/// (`release(_:from:)`) or keeps them.
func packetize(
    _ frame: EncodedFrame, with packetizer: inout FramePacketizer, into store: PacketStore, nowNs: Int64? = nil
) throws -> [WrittenPacket] {
    let plan = try packetizer.plan(frame, nowNs: nowNs ?? frame.timestampNs)
    try #require(store.canStore(plan.split.packetCount), "the test store holds \(plan.split.packetCount) more packets")
    var slots: [Int] = []
    packetizer.write(frame, plan: plan, nowNs: nowNs ?? frame.timestampNs, into: store) { slots.append($0) }
    return slots.map { WrittenPacket(slot: $0, bytes: Array(store.packet($0)), entry: store[$0]) }
}

/// Hands the slots of `packets` back to the store.
func release(_ packets: [WrittenPacket], from store: PacketStore) {
    for packet in packets { store.releaseIfUnused(packet.slot) }
}

/// Stores `count` media packets of `sizeBytes`, numbered from `firstSequenceNumber`, and records
/// each as the session does at its first send (`sentNs(index)`): into the history.
@discardableResult
func sendMedia(
    count: Int, from firstSequenceNumber: UInt16, sizeBytes: Int = 1_000, sentNs: (Int) -> Int64,
    store: PacketStore, history: inout PacketHistory
) throws -> [Int] {
    var slots: [Int] = []
    for index in 0..<count {
        let slot = try #require(store.allocate())
        store[slot].sequenceNumber = firstSequenceNumber &+ UInt16(truncatingIfNeeded: index)
        store[slot].length = sizeBytes
        let timeNs = sentNs(index)
        store[slot].firstSentNs = timeNs
        history.append(slot, store: store)
        slots.append(slot)
    }
    return slots
}
