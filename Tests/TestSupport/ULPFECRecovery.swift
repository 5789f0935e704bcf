import RTP

/// A receiver's use of an ULPFEC packet (RFC 5109 §8): with all but one of the packets it
/// protects at hand, it rebuilds the missing one. Test-only: camrtp sends FEC, it never repairs.
public enum ULPFECRecovery {
    /// The missing packet, whole, rebuilt from `fec` (an ULPFEC payload: its headers and level 0)
    /// and the packets of the stream `ssrc` that arrived (`received(sequenceNumber)`); nil when
    /// none or more than one of the protected packets is missing, or when `fec` is not ULPFEC.
    public static func recover(
        from fec: [UInt8], ssrc: UInt32, received: (UInt16) -> [UInt8]?
    ) -> [UInt8]? {
        guard let header = try? ULPFECHeader(parsing: fec) else { return nil }
        let protected = header.protectedSequenceNumbers
        let missing = protected.filter { received($0) == nil }
        guard missing.count == 1, let lost = missing.first else { return nil }
        var firstByte: UInt8 = (header.paddingRecovery ? 0x20 : 0) | (header.extensionRecovery ? 0x10 : 0) | header.csrcCountRecovery
        var secondByte: UInt8 = (header.markerRecovery ? 0x80 : 0) | header.payloadTypeRecovery
        var timestamp = header.timestampRecovery
        var length = header.lengthRecovery
        var body = Array(fec[header.serializedSize..<(header.serializedSize + Int(header.protectionLength))])
        for sequenceNumber in protected where sequenceNumber != lost {
            guard let packet = received(sequenceNumber), packet.count >= RTPHeader.fixedSize else { return nil }
            firstByte ^= packet[0]
            secondByte ^= packet[1]
            timestamp ^= UInt32(packet[4]) << 24 | UInt32(packet[5]) << 16 | UInt32(packet[6]) << 8 | UInt32(packet[7])
            length ^= UInt16(packet.count - RTPHeader.fixedSize)
            for (index, byte) in packet.dropFirst(RTPHeader.fixedSize).enumerated() where index < body.count { body[index] ^= byte }
        }
        guard Int(length) <= body.count else { return nil }
        var packet: [UInt8] = [0x80 | firstByte & 0x3F, secondByte, UInt8(lost >> 8), UInt8(lost & 0xFF)]
        packet += [UInt8(timestamp >> 24), UInt8(timestamp >> 16 & 0xFF), UInt8(timestamp >> 8 & 0xFF), UInt8(timestamp & 0xFF)]
        packet += [UInt8(ssrc >> 24), UInt8(ssrc >> 16 & 0xFF), UInt8(ssrc >> 8 & 0xFF), UInt8(ssrc & 0xFF)]
        return packet + body[..<Int(length)]
    }
}
