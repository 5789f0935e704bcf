// RTP packets as a receiver reads them: the fixed header with CSRCs and one-byte extensions,
// padding, each extension element read as the SDES items simulcast receivers route by (MID,
// RtpStreamId, RepairedRtpStreamId), the VP8 payload descriptor and payload header, and RTX
// packets read back to their originals.
//
// Input: packets in `FuzzRecords` form (a 16-bit length before each).

import FuzzSupport
import RTP

fuzz { input in
    for packet in FuzzRecords(input) {
        if let (header, size) = try? RTPHeader.parse(prefixOf: packet) {
            fuzzCheck(size <= packet.count, "RTP header of \(size) bytes in a \(packet.count)-byte packet")
            checkRoundTrip(header)
            for element in header.extensionElements {
                if let mid = try? MediaIdentification(element: element) { checkRoundTrip(mid) }
                if let rid = try? RTPStreamID(element: element) { checkRoundTrip(rid) }
                if let repaired = try? RepairedRTPStreamID(element: element) { checkRoundTrip(repaired) }
            }
        }
        if let parsed = try? RTPPacket(parsing: packet) {
            checkRoundTrip(parsed)
            if let descriptor = try? VP8PayloadDescriptor(parsing: parsed.payload) {
                fuzzCheck(descriptor.serializedSize <= parsed.payload.count, "VP8 descriptor longer than its payload")
                checkRoundTrip(descriptor)
                if let payloadHeader = try? VP8PayloadHeader(parsing: parsed.payload[descriptor.serializedSize...]) {
                    checkRoundTrip(payloadHeader)
                }
            }
        }
        if let original = try? RTXPacket.original(ofRetransmission: packet, ssrc: 1, payloadType: 96) {
            checkRoundTrip(original)
        }
    }
}
