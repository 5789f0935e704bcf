/// Builds the payload of one ULPFEC packet (RFC 5109 §7, level 0) over packets of one RTP
/// stream: the XOR of their header fields goes into the FEC header, the XOR of their bodies
/// (everything after the 12-byte fixed header: CSRCs, extensions, payload, padding) into the
/// level-0 payload, so that a receiver missing any one of them rebuilds it from the others.
/// Nothing is allocated: the protected packets are read where they lie.
public enum ULPFECEncoder {
    /// Writes the ULPFEC payload (headers, then level 0's payload) protecting `count` whole RTP
    /// packets, `packet(i)` in rising sequence order within 48 of the first, at the start of
    /// `buffer`; returns its length.
    public static func write(
        protecting count: Int, packet: (Int) -> UnsafeRawBufferPointer, into buffer: UnsafeMutableRawBufferPointer
    ) throws(WireFormatError) -> Int {
        guard count > 0 else { throw .invalid(structure: "ULPFEC packet", reason: "nothing to protect") }
        let first = packet(0)
        guard first.count >= RTPHeader.fixedSize else {
            throw .truncated(structure: "protected RTP packet", needed: RTPHeader.fixedSize, available: first.count)
        }
        var header = ULPFECHeader(sequenceNumberBase: sequenceNumber(of: first), mask: 0, isLongMask: false)
        var firstByte: UInt8 = 0
        var secondByte: UInt8 = 0
        var timestamp: UInt32 = 0
        var lengths: UInt16 = 0
        var protectionLength = 0
        for index in 0..<count {
            let protected = packet(index)
            guard protected.count >= RTPHeader.fixedSize, protected.count - RTPHeader.fixedSize <= Int(UInt16.max) else {
                throw .invalid(structure: "protected RTP packet", reason: "\(protected.count) bytes")
            }
            let offset = Int(sequenceNumber(of: protected) &- header.sequenceNumberBase)
            guard offset < ULPFECHeader.maximumProtectedPackets, header.mask & (1 << (47 - offset)) == 0 else {
                throw .invalid(structure: "ULPFEC packet", reason: "packets out of order, repeated or more than 48 apart")
            }
            header.mask |= 1 << (47 - offset)
            firstByte ^= protected[0]
            secondByte ^= protected[1]
            timestamp ^= protected.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
            lengths ^= UInt16(protected.count - RTPHeader.fixedSize)
            protectionLength = max(protectionLength, protected.count - RTPHeader.fixedSize)
        }
        header.isLongMask = header.mask & 0xFFFF_FFFF != 0
        header.paddingRecovery = firstByte & 0x20 != 0
        header.extensionRecovery = firstByte & 0x10 != 0
        header.csrcCountRecovery = firstByte & 0x0F
        header.markerRecovery = secondByte & 0x80 != 0
        header.payloadTypeRecovery = secondByte & 0x7F
        header.timestampRecovery = UInt32(bigEndian: timestamp)
        header.lengthRecovery = lengths
        header.protectionLength = UInt16(protectionLength)
        let headerSize = try header.serialize(into: buffer)
        guard buffer.count - headerSize >= protectionLength else {
            throw .bufferTooSmall(structure: "ULPFEC packet", needed: headerSize + protectionLength, available: buffer.count)
        }
        let payload = UnsafeMutableRawBufferPointer(rebasing: buffer[headerSize..<(headerSize + protectionLength)])
        payload.initializeMemory(as: UInt8.self, repeating: 0)
        for index in 0..<count {
            let protected = packet(index)
            xor(UnsafeRawBufferPointer(rebasing: protected[RTPHeader.fixedSize...]), into: payload)
        }
        return headerSize + protectionLength
    }

    /// XORs `source` into the start of `destination` (which is at least as long), eight bytes at a time.
    public static func xor(_ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer) {
        precondition(source.count <= destination.count, "XOR past the destination")
        guard let from = source.baseAddress, let to = destination.baseAddress else { return }
        var offset = 0
        while offset + 8 <= source.count {
            let word = from.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                ^ UnsafeRawPointer(to).loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            to.storeBytes(of: word, toByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < source.count {
            to.storeBytes(of: from.load(fromByteOffset: offset, as: UInt8.self) ^ to.load(fromByteOffset: offset, as: UInt8.self), toByteOffset: offset, as: UInt8.self)
            offset += 1
        }
    }

    private static func sequenceNumber(of packet: UnsafeRawBufferPointer) -> UInt16 {
        UInt16(packet[2]) << 8 | UInt16(packet[3])
    }
}
