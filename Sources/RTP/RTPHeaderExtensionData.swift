/// A header extension whose data is a wire structure of its own, such as abs-capture-time and the
/// playout delay: its RFC 8285 element is that structure, serialised, under an ID.
public protocol RTPHeaderExtensionData: WireFormat {}

extension RTPHeaderExtensionData {
    /// Reads the value from an element's data.
    public init(element: RTPHeaderExtensionElement) throws(WireFormatError) {
        self = try element.withUnsafeData { data in
            Result { () throws(WireFormatError) -> Self in try Self(parsing: data) }
        }.get()
    }

    /// The element, built on the stack (an element holds at most 16 data bytes), so that writing
    /// one for a packet never touches the heap.
    public func element(id: UInt8) throws(WireFormatError) -> RTPHeaderExtensionElement {
        var data = SIMD16<UInt8>()
        return try withUnsafeMutableBytes(of: &data) { buffer in
            Result { () throws(WireFormatError) -> RTPHeaderExtensionElement in
                let count = try serialize(into: buffer)
                return try RTPHeaderExtensionElement(id: id, data: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            }
        }.get()
    }
}
