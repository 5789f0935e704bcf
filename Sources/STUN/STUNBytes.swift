/// Big-endian reads at offsets the caller has already checked against the buffer's length.
extension UnsafeRawBufferPointer {
    func bigEndianUInt16(at offset: Int) -> UInt16 {
        UInt16(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    func bigEndianUInt32(at offset: Int) -> UInt32 {
        UInt32(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    func bigEndianUInt64(at offset: Int) -> UInt64 {
        UInt64(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
}

/// A big-endian cursor over an output buffer whose size the message checked once, up front.
struct STUNWriteCursor {
    let buffer: UnsafeMutableRawBufferPointer
    var offset: Int

    mutating func write(_ value: UInt8) {
        buffer[offset] = value
        offset += 1
    }

    mutating func write<T: FixedWidthInteger>(_ value: T) {
        buffer.storeBytes(of: value.bigEndian, toByteOffset: offset, as: T.self)
        offset += MemoryLayout<T>.size
    }

    mutating func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    mutating func write(utf8 text: String) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }

    /// Fills up to the next 32-bit boundary (RFC 5389 section 15: padding may be any value).
    mutating func pad(with byte: UInt8) {
        while offset % 4 != 0 { write(byte) }
    }

    private mutating func write(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset + bytes.count]).copyMemory(from: bytes)
        offset += bytes.count
    }
}
