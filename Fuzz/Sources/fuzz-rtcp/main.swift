// RTCP compound packets as they arrive on the RTCP port: SR, RR, SDES, BYE and any other
// packet type kept opaque.
//
// Input: one datagram.

import FuzzSupport
import RTCP
import RTP

/// `compound` written, or nil when it cannot be (SDES text with invalid UTF-8 may grow past the
/// 255 bytes an item holds).
func serialized(_ compound: RTCPCompoundPacket) -> [UInt8]? {
    let size = compound.serializedSize
    return withUnsafeTemporaryAllocation(byteCount: size, alignment: 8) { buffer in
        guard let written = try? compound.serialize(into: buffer) else { return nil }
        fuzzCheck(written == size, "RTCP: wrote \(written) bytes, serializedSize is \(size)")
        return Array(buffer[..<written])
    }
}

fuzz { input in
    guard let compound = try? RTCPCompoundPacket(parsing: input), let first = serialized(compound) else { return }
    // What was written reads back; written again, it gives the same bytes (the first write
    // drops padding and bytes past the items a packet's count declares, such as an SR's
    // profile-specific extensions).
    let reparsed: RTCPCompoundPacket
    do throws(WireFormatError) {
        reparsed = try RTCPCompoundPacket(parsing: first)
    } catch {
        fuzzCheck(false, "RTCP: \(compound) was written as bytes that do not read back: \(error)")
        return
    }
    fuzzCheck(serialized(reparsed) == first, "RTCP: \(compound) reads back as \(reparsed)")
}
