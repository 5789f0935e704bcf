// STUN messages as ICE reads them off the shared socket: the header, every attribute ICE types
// (XOR-MAPPED-ADDRESS, USERNAME, ERROR-CODE, ...) and unknown ones kept raw, and the
// MESSAGE-INTEGRITY and FINGERPRINT checks that run on the received bytes.
//
// Input: one datagram.

import FuzzSupport
import RTP
import STUN

/// RFC 5769's password, so that inputs grown from its vectors keep a valid MESSAGE-INTEGRITY.
let key = Array("VOkJxbRl1RmTxUk/WvJxBt".utf8)

/// `message` written, failing the run if it writes a size other than `serializedSize`.
func serialized(_ message: STUNMessage) -> [UInt8] {
    let size = message.serializedSize
    return withUnsafeTemporaryAllocation(byteCount: size, alignment: 8) { buffer in
        do throws(WireFormatError) {
            let written = try message.serialize(into: buffer)
            fuzzCheck(written == size, "STUN: wrote \(written) bytes, serializedSize is \(size)")
            return Array(buffer[..<written])
        } catch {
            fuzzCheck(false, "STUN: \(message) parsed but does not write: \(error)")
            return []
        }
    }
}

fuzz { input in
    let integrity = try? STUNMessage.hasValidMessageIntegrity(input, key: key)
    let fingerprint = try? STUNMessage.hasValidFingerprint(input)
    let parsed: STUNMessage
    do throws(WireFormatError) {
        parsed = try STUNMessage(parsing: input)
    } catch {
        return
    }
    // RFC 5389 allows 12-bit methods, which put up to 63 in the first byte; RFC 7983's
    // demultiplexer calls only 0…3 STUN, since the rest of that range is DTLS's.
    fuzzCheck(STUNMessage.isSTUN(input) == (input[0] < 4), "STUN: \(parsed) parsed, isSTUN disagrees")
    fuzzCheck(integrity != nil && fingerprint != nil, "STUN: \(parsed) parsed, but its checks call it malformed")
    // What parses writes back to a message of the same value, and (with one padding byte, as
    // parsing keeps the first) to the bytes it came from, so its checks still hold.
    let written = serialized(parsed)
    let reparsed: STUNMessage
    do throws(WireFormatError) {
        reparsed = try STUNMessage(parsing: written)
    } catch {
        fuzzCheck(false, "STUN: \(parsed) was written as bytes that do not read back: \(error)")
        return
    }
    fuzzCheck(reparsed == parsed, "STUN: \(parsed) reads back as \(reparsed)")
    fuzzCheck(serialized(reparsed) == written, "STUN: \(parsed) writes different bytes the second time")

    // Bytes that came back unchanged check the same way.
    if input.count >= written.count, Array(input[..<written.count]) == written {
        let checks = written.withUnsafeBytes { bytes in
            (try? STUNMessage.hasValidMessageIntegrity(bytes, key: key), try? STUNMessage.hasValidFingerprint(bytes))
        }
        fuzzCheck(checks.0 == integrity && checks.1 == fingerprint, "STUN: \(parsed) checks differently once written")
    }

    // Signed and fingerprinted again by us, the message passes both checks.
    var signed = parsed
    signed.attributes.removeAll {
        if case .messageIntegrity = $0 { return true }
        if case .fingerprint = $0 { return true }
        return false
    }
    guard (try? signed.appendMessageIntegrity(key: key)) != nil, (try? signed.appendFingerprint()) != nil else { return }
    let signedBytes = serialized(signed)
    signedBytes.withUnsafeBytes { bytes in
        fuzzCheck((try? STUNMessage.hasValidMessageIntegrity(bytes, key: key)) == true, "STUN: \(signed) fails its own MESSAGE-INTEGRITY")
        fuzzCheck((try? STUNMessage.hasValidFingerprint(bytes)) == true, "STUN: \(signed) fails its own FINGERPRINT")
    }
}
