// RED (RFC 2198) and ULPFEC (RFC 5109) as a receiver reads them: the RED block headers of an RTP
// payload, the ULPFEC headers of its primary block (or of the payload itself, for FEC sent
// without RED), and a media packet wrapped in RED by the sender reading back unchanged.
//
// Input: RTP packets in `FuzzRecords` form (a 16-bit length before each).

import FuzzSupport
import RTP

/// An ULPFEC payload's headers: within the payload, at most 48 packets from SN base.
func checkFEC(_ payload: UnsafeRawBufferPointer) {
    guard let fec = try? ULPFECHeader(parsing: payload) else { return }
    fuzzCheck(fec.serializedSize + Int(fec.protectionLength) <= payload.count, "ULPFEC level 0 past its payload")
    let protected = fec.protectedSequenceNumbers
    fuzzCheck(protected.count <= ULPFECHeader.maximumProtectedPackets, "\(protected.count) protected packets")
    fuzzCheck(protected.allSatisfy { $0 &- fec.sequenceNumberBase < (fec.isLongMask ? 48 : 16) }, "a protected packet past the mask")
    checkRoundTrip(fec)
}

fuzz { input in
    for packet in FuzzRecords(input) {
        guard let (header, headerSize) = try? RTPHeader.parse(prefixOf: packet), headerSize <= packet.count else { continue }
        let payload = UnsafeRawBufferPointer(rebasing: packet[headerSize...])
        checkFEC(payload)
        if let red = try? REDHeader(parsing: payload) {
            let primaryStart = red.serializedSize + red.redundantLength
            fuzzCheck(primaryStart <= payload.count, "RED blocks past the payload")
            fuzzCheck(red.redundantBlocks.count <= REDHeader.maximumRedundantBlocks, "\(red.redundantBlocks.count) redundant blocks")
            checkRoundTrip(red)
            checkFEC(UnsafeRawBufferPointer(rebasing: payload[primaryStart...]))
        }
        // The sender's side: any whole packet wrapped in RED reads back as its own payload type and payload.
        withUnsafeTemporaryAllocation(byteCount: packet.count + REDHeader.primaryHeaderSize, alignment: 8) { buffer in
            let length = REDHeader.encapsulate(packet, headerLength: headerSize, redPayloadType: 127, into: buffer)
            fuzzCheck(length == packet.count + REDHeader.primaryHeaderSize, "RED of \(packet.count) bytes is \(length)")
            let wrapped = UnsafeRawBufferPointer(rebasing: buffer[..<length])
            fuzzCheck(wrapped[1] == packet[1] & 0x80 | 127, "RED keeps the marker, takes its payload type")
            guard let red = try? REDHeader(parsing: UnsafeRawBufferPointer(rebasing: wrapped[headerSize...])) else {
                return fuzzCheck(false, "RED that encapsulate wrote does not parse")
            }
            fuzzCheck(red.redundantBlocks.isEmpty && red.primaryPayloadType == header.payloadType, "RED names \(red.primaryPayloadType)")
            fuzzCheck(
                wrapped[(headerSize + REDHeader.primaryHeaderSize)...].elementsEqual(packet[headerSize...]),
                "RED's primary block is not the payload")
        }
    }
}
