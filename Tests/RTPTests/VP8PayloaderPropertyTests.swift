import TestSupport
import Testing
@testable import RTP

/// The balanced split (libwebrtc's `SplitAboutEqually`) and the payloads written from it, for
/// every small size and room, and for random frames.
@Suite struct VP8PayloaderPropertyTests {
    @Test func splitIsBalancedForEverySmallSize() {
        for capacity in 1...40 {
            for reduction in 0..<capacity {
                for size in 1...200 {
                    let split = BalancedPayloadSplit(payloadSize: size, capacity: capacity, lastPacketReduction: reduction)
                    let sizes = (0..<split.packetCount).map(split.size(ofPacket:))
                    #expect(sizes.reduce(0, +) == size)
                    #expect(sizes.allSatisfy { $0 >= 1 && $0 <= capacity })
                    #expect(sizes.last! <= capacity - reduction)
                    #expect(split.packetCount == max(1, (size + reduction + capacity - 1) / capacity))
                    let leading = sizes.count > 1 ? sizes.dropLast() : sizes[...]
                    #expect(leading.max()! - leading.min()! <= 1)
                    if reduction == 0 { #expect(sizes.max()! - sizes.min()! <= 1) }
                    // Shares are contiguous: each starts where the previous ended.
                    let offsets = (0..<split.packetCount).map(split.offset(ofPacket:))
                    #expect(offsets == Array(sizes.reductions(0, +).dropLast()))
                }
            }
        }
    }

    @Test(arguments: [(16, 0), (16, 4), (100, 0), (100, 8), (1_184, 0), (1_184, 4)])
    func payloadsCarryTheWholeFrameInOrder(payloadCapacity: Int, lastPacketReduction: Int) throws {
        var payloader = VP8Payloader(initialPictureID: 32_765)
        var generator = SplitMix64(state: UInt64(payloadCapacity * 31 + lastPacketReduction))
        for frameSize in [1, 2, 11, 12, 13, 999, 5_000, 65_536] {
            let frame = (0..<frameSize).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let split = try payloader.split(
                frameSize: frameSize, isDroppable: frameSize % 2 == 0, payloadCapacity: payloadCapacity,
                lastPacketReduction: lastPacketReduction)
            let written = payloads(of: split, frame: frame)
            var data: [UInt8] = []
            for (index, payload) in written.enumerated() {
                let room = payloadCapacity - (index == written.count - 1 ? lastPacketReduction : 0)
                #expect(payload.count <= room)
                #expect(payload.count == split.payloadSize(ofPacket: index))
                let descriptor = try VP8PayloadDescriptor(parsing: payload)
                #expect(descriptor.serializedSize == VP8Payloader.descriptorSize)
                #expect(descriptor.isStartOfPartition == (index == 0))
                #expect(descriptor.partitionIndex == 0)
                #expect(descriptor.isNonReference == (frameSize % 2 == 0))
                #expect(descriptor.pictureID == .long(split.pictureID))
                data += payload[descriptor.serializedSize...]
            }
            #expect(data == frame)
        }
        // Eight frames from 32 765 wrapped the 15-bit PictureID.
        #expect(payloader.nextPictureID == 5)
    }
}

extension Sequence {
    /// Running results of `combine`, starting with `initial`: [initial, initial + a, ...].
    fileprivate func reductions<Result>(_ initial: Result, _ combine: (Result, Element) -> Result) -> [Result] {
        var running = initial
        return [initial] + map { element in
            running = combine(running, element)
            return running
        }
    }
}
