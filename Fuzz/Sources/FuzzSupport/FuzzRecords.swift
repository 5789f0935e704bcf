/// Splits one fuzz input into a sequence of byte strings, for targets that feed several
/// packets to one stateful receiver: each record is a 16-bit big-endian length and that many
/// bytes; a last record shorter than its length keeps what there is.
///
/// ```
/// +--------+------------------+--------+------------------+
/// | length | record (length)  | length | record ...       |
/// +--------+------------------+--------+------------------+
/// ```
public struct FuzzRecords: Sequence, IteratorProtocol {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    public init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    public mutating func next() -> UnsafeRawBufferPointer? {
        guard bytes.count - offset >= 2 else { return nil }
        let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
        let start = offset + 2
        let end = Swift.min(start + length, bytes.count)
        offset = end
        return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    }
}
