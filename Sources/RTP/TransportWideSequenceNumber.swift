/// The transport-wide sequence number header extension
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §2): 2 data bytes, one counter across
/// every stream of the transport, so that the receiver's transport-wide feedback can say when
/// each packet arrived.
///
/// ```
///  0                   1                   2
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  ID   | L=1   |transport-wide sequence number |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// The number is given in the order packets leave, after pacing and retransmission, so the
/// sender patches it into an already serialised packet with `patch(_:atByteOffset:)`, at the
/// offset `RTPHeader.byteOffset(ofExtensionData:)` gives.
public struct TransportWideSequenceNumber: Equatable, Sendable {
    public static let dataCount = 2

    public let value: UInt16

    public init(value: UInt16) {
        self.value = value
    }

    public init(element: RTPHeaderExtensionElement) throws(WireFormatError) {
        guard element.count == Self.dataCount else {
            throw .invalid(structure: "transport-wide sequence number extension", reason: "\(element.count) data bytes, expected 2")
        }
        self.init(value: element.withUnsafeData { UInt16($0[0]) << 8 | UInt16($0[1]) })
    }

    public func element(id: UInt8) throws(WireFormatError) -> RTPHeaderExtensionElement {
        var bytes: (UInt8, UInt8) = (0, 0)
        withUnsafeMutableBytes(of: &bytes) { patch($0, atByteOffset: 0) }
        return try RTPHeaderExtensionElement(id: id, bytesOf: bytes)
    }

    /// Writes the value over the 2 data bytes at `offset` of a serialised packet.
    public func patch(_ packet: UnsafeMutableRawBufferPointer, atByteOffset offset: Int) {
        precondition(offset >= 0 && offset + Self.dataCount <= packet.count, "transport-wide sequence number offset outside the packet")
        packet[offset] = UInt8(truncatingIfNeeded: value >> 8)
        packet[offset + 1] = UInt8(truncatingIfNeeded: value)
    }
}
