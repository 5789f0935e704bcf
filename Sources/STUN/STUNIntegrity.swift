import CSSL
import CZlib
import RTP

/// MESSAGE-INTEGRITY (RFC 5389 section 15.4) and FINGERPRINT (section 15.5): computing them
/// for messages we build, and checking them in bytes we receive.
///
/// For ICE's short-term credentials the key is the password's UTF-8 bytes (RFC 5389 section
/// 15.4; ICE passwords are plain ASCII, which SASLprep leaves as is): the receiver's password,
/// since the receiver checks it.
extension STUNMessage {
    /// XORed into the CRC-32 so FINGERPRINT differs from other protocols' CRCs.
    public static let fingerprintXOR: UInt32 = 0x5354_554E

    /// Appends MESSAGE-INTEGRITY, HMAC-SHA1 with `key` over the message so far, its length
    /// field already counting the new attribute.
    public mutating func appendMessageIntegrity(key: [UInt8]) throws(WireFormatError) {
        attributes.append(.messageIntegrity([UInt8](repeating: 0, count: STUNAttribute.messageIntegritySize)))
        let bytes = try serializedChecked()
        let covered = bytes.count - 4 - STUNAttribute.messageIntegritySize
        attributes[attributes.count - 1] = .messageIntegrity(Self.hmac(bytes[..<covered], key: key))
    }

    /// Appends FINGERPRINT, the CRC-32 of the message so far (length field counting it) XOR
    /// 0x5354554e. It goes last.
    public mutating func appendFingerprint() throws(WireFormatError) {
        attributes.append(.fingerprint(0))
        let bytes = try serializedChecked()
        attributes[attributes.count - 1] = .fingerprint(Self.crc32(bytes[..<(bytes.count - 8)]) ^ Self.fingerprintXOR)
    }

    /// True when `bytes` holds a MESSAGE-INTEGRITY that `key` produces over the message before
    /// it; false when it is absent or wrong. Throws on a malformed message.
    public static func hasValidMessageIntegrity(_ bytes: UnsafeRawBufferPointer, key: [UInt8]) throws(WireFormatError) -> Bool {
        let layout = try STUNMessageLayout(parsing: bytes)
        guard let entry = layout.attributes.first(where: { $0.type == STUNAttribute.TypeCode.messageIntegrity }),
              entry.valueRange.count == STUNAttribute.messageIntegritySize
        else { return false }
        // The HMAC covers the message up to the attribute, with a length that ends after it.
        var covered = Array(bytes[..<entry.offset])
        let length = UInt16(entry.valueRange.upperBound - headerSize)
        covered[2] = UInt8(length >> 8)
        covered[3] = UInt8(length & 0xFF)
        let computed = hmac(covered, key: key)
        let received = UnsafeRawBufferPointer(rebasing: bytes[entry.valueRange])
        // Compared in constant time, as MACs must be.
        return computed.withUnsafeBytes { CRYPTO_memcmp($0.baseAddress, received.baseAddress, $0.count) } == 0
    }

    /// True when `bytes` ends in a FINGERPRINT that matches the message before it; false when
    /// it is absent or wrong. Throws on a malformed message.
    public static func hasValidFingerprint(_ bytes: UnsafeRawBufferPointer) throws(WireFormatError) -> Bool {
        let layout = try STUNMessageLayout(parsing: bytes)
        guard let last = layout.attributes.last, last.type == STUNAttribute.TypeCode.fingerprint,
              last.valueRange.count == 4
        else { return false }
        // The length field already ends after FINGERPRINT, as the CRC requires.
        let expected = bytes.bigEndianUInt32(at: last.valueRange.lowerBound)
        return crc32(bytes[..<last.offset]) ^ fingerprintXOR == expected
    }

    private func serializedChecked() throws(WireFormatError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: serializedSize)
        var written = Result<Int, WireFormatError>.success(0)
        bytes.withUnsafeMutableBytes { buffer in
            written = Result { () throws(WireFormatError) in try serialize(into: buffer) }
        }
        return Array(bytes[..<(try written.get())])
    }

    /// HMAC-SHA1 through OpenSSL (the library DTLS already links).
    private static func hmac(_ bytes: some Sequence<UInt8>, key: [UInt8]) -> [UInt8] {
        let data = Array(bytes)
        var digest = [UInt8](repeating: 0, count: STUNAttribute.messageIntegritySize)
        var length: UInt32 = 0
        let done = key.withUnsafeBytes { keyBytes in
            data.withUnsafeBufferPointer { dataBytes in
                digest.withUnsafeMutableBufferPointer { output in
                    HMAC(EVP_sha1(), keyBytes.baseAddress, Int32(keyBytes.count), dataBytes.baseAddress, dataBytes.count,
                         output.baseAddress, &length)
                }
            }
        }
        precondition(done != nil && Int(length) == STUNAttribute.messageIntegritySize, "OpenSSL's HMAC-SHA1 failed")
        return digest
    }

    private static func crc32(_ bytes: some Collection<UInt8>) -> UInt32 {
        let contiguous = Array(bytes)
        return contiguous.withUnsafeBytes { buffer in
            UInt32(truncatingIfNeeded: CZlib.crc32(0, buffer.bindMemory(to: Bytef.self).baseAddress, uInt(buffer.count)))
        }
    }
}
