/// One element of an RFC 8285 one-byte header extension block (§4.2).
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  ID   |  len  |     data (len + 1 bytes) ...
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// The data (1–16 bytes) is stored inline, so building and copying elements never touches the heap.
public struct RTPHeaderExtensionElement: Equatable, Sendable {
    /// Valid one-byte-form IDs; 0 is padding and 15 is reserved (RFC 8285 §4.2).
    public static let validIDs: ClosedRange<UInt8> = 1...14
    /// The largest element data the one-byte form can carry.
    public static let maximumDataCount = 16

    public let id: UInt8
    /// The number of data bytes, 1–16.
    public let count: Int
    private let storage: SIMD16<UInt8>

    /// The number of bytes the element takes in a block: one header byte plus its data.
    public var serializedSize: Int { 1 + count }

    public init(id: UInt8, data: UnsafeRawBufferPointer) throws(WireFormatError) {
        guard Self.validIDs.contains(id) else {
            throw .invalid(structure: "RTP header extension element", reason: "ID \(id) is outside 1...14")
        }
        guard (1...Self.maximumDataCount).contains(data.count) else {
            throw .invalid(
                structure: "RTP header extension element",
                reason: "\(data.count) data bytes, the one-byte form carries 1...16")
        }
        var storage = SIMD16<UInt8>()
        withUnsafeMutableBytes(of: &storage) { UnsafeMutableRawBufferPointer(rebasing: $0[0..<data.count]).copyMemory(from: data) }
        self.id = id
        self.count = data.count
        self.storage = storage
    }

    public init(id: UInt8, data: [UInt8]) throws(WireFormatError) {
        self = try data.withUnsafeBytes { raw in
            Result { () throws(WireFormatError) -> Self in try Self(id: id, data: raw) }
        }.get()
    }

    /// An element whose data is the in-memory bytes of `value`, such as a byte or a tuple of bytes.
    init<T>(id: UInt8, bytesOf value: T) throws(WireFormatError) {
        self = try withUnsafeBytes(of: value) { raw in
            Result { () throws(WireFormatError) -> Self in try Self(id: id, data: raw) }
        }.get()
    }

    /// The data bytes in a new array; for tests and cold paths.
    public var data: [UInt8] { withUnsafeData { Array($0) } }

    public func withUnsafeData<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        withUnsafeBytes(of: storage) { body(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }

    func write(to writer: inout ByteWriter) {
        writer.write(id << 4 | UInt8(count - 1))
        withUnsafeData { writer.write($0) }
    }
}
