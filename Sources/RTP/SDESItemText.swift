/// The data of a header extension that carries an SDES item's text (RFC 7941 §4.1): the text's
/// bytes alone, with no length and no terminator, 1 to 16 of them in the one-byte form (RFC 8285
/// §4.2). The RTP stream identifiers and the MID share it; each names its own characters.
enum SDESItemText {
    /// The one-byte form's limit on an element's data.
    static let maximumCount = RTPHeaderExtensionElement.maximumDataCount

    /// Whether `text` is 1 to 16 bytes, each one `allowed` accepts.
    static func isValid(_ text: String, allowed: (UInt8) -> Bool) -> Bool {
        (1...maximumCount).contains(text.utf8.count) && text.utf8.allSatisfy(allowed)
    }

    static func parse(
        _ bytes: UnsafeRawBufferPointer, structure: String, syntax: String, allowed: (UInt8) -> Bool
    ) throws(WireFormatError) -> String {
        guard (1...maximumCount).contains(bytes.count) else {
            throw .invalid(structure: structure, reason: "\(bytes.count) data bytes, the one-byte form carries 1...16")
        }
        guard bytes.allSatisfy(allowed) else {
            throw .invalid(structure: structure, reason: "a byte outside \(syntax)")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func serialize(_ text: String, into buffer: UnsafeMutableRawBufferPointer, structure: String) throws(WireFormatError) -> Int {
        var writer = try ByteWriter(buffer, size: text.utf8.count, structure: structure)
        writer.write(utf8: text)
        return writer.offset
    }

    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }
}
