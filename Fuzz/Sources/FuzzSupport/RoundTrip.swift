import RTP

/// What parses must write back out in `serializedSize` bytes, and read back to the same value.
public func checkRoundTrip<Value: WireFormat & Equatable>(_ value: Value) {
    let size = value.serializedSize
    withUnsafeTemporaryAllocation(byteCount: size, alignment: 8) { buffer in
        do throws(WireFormatError) {
            let written = try value.serialize(into: buffer)
            fuzzCheck(written == size, "\(Value.self): wrote \(written) bytes, serializedSize is \(size)")
            let reparsed = try Value(parsing: UnsafeRawBufferPointer(rebasing: buffer[..<written]))
            fuzzCheck(reparsed == value, "\(Value.self): \(value) reads back as \(reparsed)")
        } catch {
            fuzzCheck(false, "\(Value.self): \(value) does not round-trip: \(error)")
        }
    }
}
