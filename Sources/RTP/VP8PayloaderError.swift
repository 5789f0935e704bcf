/// Why the VP8 payloader refused a frame.
public enum VP8PayloaderError: Error, Equatable, Sendable, CustomStringConvertible {
    case emptyFrame
    /// The packet size limit, after the RTP header and SRTP tag, leaves no room for one byte of
    /// payload after the descriptor.
    case noRoomForPayload(available: Int, needed: Int)

    public var description: String {
        switch self {
        case .emptyFrame:
            "an encoded frame has no bytes to packetize"
        case .noRoomForPayload(let available, let needed):
            "the MTU leaves \(available) bytes for the VP8 payload; it needs at least \(needed)"
        }
    }
}
