/// A big-endian cursor over an output buffer whose capacity was checked once, up front, against
/// the structure's `serializedSize`; the writes themselves then need no further checks.
package struct ByteWriter {
    package let buffer: UnsafeMutableRawBufferPointer
    package private(set) var offset = 0

    /// Throws `bufferTooSmall` unless `buffer` holds at least `size` bytes.
    package init(_ buffer: UnsafeMutableRawBufferPointer, size: Int, structure: String) throws(WireFormatError) {
        guard buffer.count >= size else {
            throw .bufferTooSmall(structure: structure, needed: size, available: buffer.count)
        }
        self.buffer = buffer
    }

    package mutating func write(_ value: UInt8) {
        buffer[offset] = value
        offset += 1
    }

    package mutating func write(_ value: UInt16) {
        writeBigEndian(value)
    }

    /// For the few little-endian fields, such as VP8 keyframe dimensions (RFC 6386 §9.1).
    package mutating func writeLittleEndian(_ value: UInt16) {
        buffer.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt16.self)
        offset += 2
    }

    package mutating func writeUInt24(_ value: UInt32) {
        buffer[offset] = UInt8(truncatingIfNeeded: value >> 16)
        buffer[offset + 1] = UInt8(truncatingIfNeeded: value >> 8)
        buffer[offset + 2] = UInt8(truncatingIfNeeded: value)
        offset += 3
    }

    package mutating func write(_ value: UInt32) {
        writeBigEndian(value)
    }

    package mutating func write(_ value: UInt64) {
        writeBigEndian(value)
    }

    package mutating func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    package mutating func write(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset + bytes.count]).copyMemory(from: bytes)
        offset += bytes.count
    }

    package mutating func writeZeros(_ count: Int) {
        guard count > 0 else { return }
        UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset + count]).initializeMemory(as: UInt8.self, repeating: 0)
        offset += count
    }

    /// The UTF-8 bytes of `text`, without a length or terminator.
    package mutating func write(utf8 text: String) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }

    /// A nested structure, written where the cursor is.
    package mutating func write(_ structure: some WireFormat) throws(WireFormatError) {
        offset += try structure.serialize(into: UnsafeMutableRawBufferPointer(rebasing: buffer[offset...]))
    }

    /// Zero bytes up to the next multiple of four, as RTP and RTCP need for 32-bit words.
    package mutating func padToWordBoundary() {
        writeZeros((4 - offset % 4) % 4)
    }

    /// `byte` up to the next multiple of four (STUN lets padding take any value, RFC 5389 §15).
    package mutating func padToWordBoundary(with byte: UInt8) {
        while offset % 4 != 0 { write(byte) }
    }

    private mutating func writeBigEndian<T: FixedWidthInteger>(_ value: T) {
        buffer.storeBytes(of: value.bigEndian, toByteOffset: offset, as: T.self)
        offset += MemoryLayout<T>.size
    }
}
