/// A bounds-checked big-endian cursor over input bytes: every read either succeeds or throws
/// `WireFormatError.truncated`, so parsers built on it cannot trap on short input.
package struct ByteReader {
    package let bytes: UnsafeRawBufferPointer
    package let structure: String
    package private(set) var offset = 0

    package init(_ bytes: UnsafeRawBufferPointer, structure: String) {
        self.bytes = bytes
        self.structure = structure
    }

    package var remaining: Int { bytes.count - offset }

    package func require(_ count: Int) throws(WireFormatError) {
        guard count <= remaining else {
            throw .truncated(structure: structure, needed: offset + count, available: bytes.count)
        }
    }

    package mutating func readUInt8() throws(WireFormatError) -> UInt8 {
        try require(1)
        defer { offset += 1 }
        return bytes[offset]
    }

    package mutating func readUInt16() throws(WireFormatError) -> UInt16 {
        try readBigEndian(UInt16.self)
    }

    /// For the few little-endian fields, such as VP8 keyframe dimensions (RFC 6386 §9.1).
    package mutating func readUInt16LittleEndian() throws(WireFormatError) -> UInt16 {
        try require(2)
        defer { offset += 2 }
        return UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    package mutating func readUInt24() throws(WireFormatError) -> UInt32 {
        try require(3)
        defer { offset += 3 }
        return UInt32(bytes[offset]) << 16 | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2])
    }

    package mutating func readUInt32() throws(WireFormatError) -> UInt32 {
        try readBigEndian(UInt32.self)
    }

    /// The next `count` bytes, without copying; valid as long as the input is.
    package mutating func readBytes(_ count: Int) throws(WireFormatError) -> UnsafeRawBufferPointer {
        try require(count)
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    package mutating func skip(_ count: Int) throws(WireFormatError) {
        try require(count)
        offset += count
    }

    private mutating func readBigEndian<T: FixedWidthInteger>(_: T.Type) throws(WireFormatError) -> T {
        try require(MemoryLayout<T>.size)
        defer { offset += MemoryLayout<T>.size }
        return T(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}
