import MediaCore
import RTP
import Testing
import Transport
@testable import RTPSender

/// Encoded frames of `sizes` bytes, 40 ms apart (25 fps), the first a keyframe.
func testFrames(_ sizes: [Int], rotation: VideoRotation = .deg0) -> [EncodedFrame] {
    sizes.enumerated().map { index, size in
        EncodedFrame(
            data: (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }, width: 320, height: 240,
            timestampNs: 7_000_000_000 + Int64(index) * 40_000_000, rotation: rotation,
            isKeyframe: index == 0, isDroppable: false)
    }
}

/// One encoded frame with the given bytes.
func encodedFrame(
    _ data: [UInt8], timestampNs: Int64 = 0, rotation: VideoRotation = .deg0, isKeyframe: Bool = false,
    isDroppable: Bool = false
) -> EncodedFrame {
    EncodedFrame(
        data: data, width: 320, height: 240, timestampNs: timestampNs, rotation: rotation, isKeyframe: isKeyframe,
        isDroppable: isDroppable)
}

/// The session of the byte-vector tests: SSRC 0x11223344, sequence numbers from 1000, no timestamp
/// offset, PictureIDs from 0x1234.
let vectorSession = RTPSessionParameters(
    ssrc: 0x1122_3344, initialSequenceNumber: 1000, timestampOffset: 0, initialPictureID: 0x1234)

/// A sender configuration for packetizer tests; nothing here opens a socket.
func senderConfiguration(
    mtu: Int = 1200, session: RTPSessionParameters = vectorSession, extensions: HeaderExtensionIDs = HeaderExtensionIDs(),
    srtpSuite: SRTPSuite? = nil, retransmission: RetransmissionMode = .resend
) throws -> RTPSenderConfiguration {
    RTPSenderConfiguration(
        route: .udp(destination: try Endpoint(parsing: "127.0.0.1:5004"), rtcpDestination: nil, localPort: 0), mtu: mtu,
        session: session,
        srtpKey: srtpSuite.map { SRTPMasterKey(randomFor: $0) }, extensions: extensions, retransmission: retransmission)
}

/// A packet the packetizer wrote, copied out of the store with what the store knows about it.
struct WrittenPacket {
    var slot: Int
    var bytes: [UInt8]
    var entry: PacketStore.Entry
}

/// Plans and writes `frame` as the send loop does, and reads each packet back from the store.
/// The slots stay allocated: the caller releases them (`release(_:from:)`) or keeps them.
func packetize(_ frame: EncodedFrame, with packetizer: inout FramePacketizer, into store: PacketStore) throws -> [WrittenPacket] {
    let (split, orientation) = try packetizer.plan(frame)
    try #require(store.canStore(split.packetCount), "the test store holds \(split.packetCount) more packets")
    var slots: [Int] = []
    packetizer.write(frame, split: split, orientation: orientation, into: store) { slots.append($0) }
    return slots.map { WrittenPacket(slot: $0, bytes: Array(store.packet($0)), entry: store[$0]) }
}

/// Hands the slots of `packets` back to the store.
func release(_ packets: [WrittenPacket], from store: PacketStore) {
    for packet in packets { store.releaseIfUnused(packet.slot) }
}

/// Stores `count` media packets of `sizeBytes`, numbered from `firstSequenceNumber`, and records
/// each as the send loop does at its first send (`sentNs(index)`): sent once, into the history.
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
        store[slot].lastSentNs = timeNs
        store[slot].timesSent = 1
        history.append(slot, store: store)
        slots.append(slot)
    }
    return slots
}
