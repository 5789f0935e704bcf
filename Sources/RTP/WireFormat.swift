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
    /// Reads the structure from any byte collection, such as an array or a slice of one.
    public init(parsing bytes: some Collection<UInt8>) throws(WireFormatError) {
        let parsed = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(WireFormatError) -> Self in try Self(parsing: UnsafeRawBufferPointer(buffer)) }
        }
        if let parsed {
            self = try parsed.get()
        } else {
            self = try Self(parsing: Array(bytes))
        }
    }

    /// The serialised bytes in a new array; for tests and cold paths.
    public func serialized() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: serializedSize) { buffer, initializedCount in
            // The buffer has exactly `serializedSize` bytes, so writing cannot fail.
            initializedCount = (try? serialize(into: UnsafeMutableRawBufferPointer(buffer))) ?? 0
        }
    }
}
