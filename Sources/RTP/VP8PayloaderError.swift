/// Why the VP8 payloader refused a configuration or a frame.
public enum VP8PayloaderError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The packet size limit leaves no room for a single payload byte.
    case mtuTooSmall(mtu: Int, minimum: Int)
    case invalidExtensionID(UInt8)
    /// Two header extensions were given the same ID.
    case duplicateExtensionID(UInt8)
    case negativeSRTPOverhead(Int)
    case emptyFrame
    /// The batch's slots are smaller than the packets the payloader writes.
    case batchSlotTooSmall(slotCapacity: Int, mtu: Int)

    public var description: String {
        switch self {
        case .mtuTooSmall(let mtu, let minimum):
            "MTU \(mtu) is too small: RTP needs at least \(minimum) bytes"
        case .invalidExtensionID(let id):
            "RTP header extension ID \(id) is outside 1...14"
        case .duplicateExtensionID(let id):
            "RTP header extension ID \(id) is used twice"
        case .negativeSRTPOverhead(let overhead):
            "SRTP overhead \(overhead) is negative"
        case .emptyFrame:
            "an encoded frame has no bytes to packetize"
        case .batchSlotTooSmall(let slotCapacity, let mtu):
            "packet batch slots hold \(slotCapacity) bytes, the MTU is \(mtu)"
        }
    }
}
