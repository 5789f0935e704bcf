/// The shape every wire structure in this module shares: parse from bytes, report its size,
/// write itself into a caller-provided buffer.
public protocol WireFormat {
    /// Reads the structure from the start of `bytes`; throws on short or garbled input.
    init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError)
    /// The number of bytes `serialize(into:)` writes.
    var serializedSize: Int { get }
    /// Writes the structure at the start of `buffer` and returns the number of bytes written.
    func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int
}

extension WireFormat {
    public init(parsing bytes: [UInt8]) throws(WireFormatError) {
        self = try bytes.withUnsafeBytes { raw in
            Result { () throws(WireFormatError) -> Self in try Self(parsing: raw) }
        }.get()
    }

    /// The serialised bytes in a new array; for tests and cold paths.
    public func serialized() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: serializedSize) { buffer, initializedCount in
            // The buffer has exactly `serializedSize` bytes, so writing cannot fail.
            initializedCount = (try? serialize(into: UnsafeMutableRawBufferPointer(buffer))) ?? 0
        }
    }
}
