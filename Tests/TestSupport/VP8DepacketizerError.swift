import RTP

/// Why the VP8 depacketizer rejected a packet.
public enum VP8DepacketizerError: Error, Equatable, Sendable, CustomStringConvertible {
    case malformed(WireFormatError)
    /// A frame began without S = 1 and PID = 0.
    case missingStartOfFrame(sequenceNumber: UInt16)
    /// A packet with S = 1 and PID = 0 arrived before the previous frame's marker.
    case unexpectedStartOfFrame(sequenceNumber: UInt16)
    case sequenceGap(expected: UInt16, received: UInt16)
    case timestampChangedWithinFrame(expected: UInt32, received: UInt32)
    case pictureIDChangedWithinFrame(expected: UInt16?, received: UInt16?)
    /// Consecutive frames whose PictureIDs do not follow each other modulo 2¹⁵.
    case pictureIDGap(expected: UInt16, received: UInt16?)

    public var description: String {
        switch self {
        case .malformed(let error): "malformed VP8 RTP packet: \(error)"
        case .missingStartOfFrame(let sequence): "packet \(sequence) starts a frame without S=1, PID=0"
        case .unexpectedStartOfFrame(let sequence): "packet \(sequence) starts a frame before the previous one ended"
        case .sequenceGap(let expected, let received): "expected sequence number \(expected), got \(received)"
        case .timestampChangedWithinFrame(let expected, let received):
            "timestamp changed within a frame from \(expected) to \(received)"
        case .pictureIDChangedWithinFrame(let expected, let received):
            "PictureID changed within a frame from \(expected.map(String.init) ?? "none") to \(received.map(String.init) ?? "none")"
        case .pictureIDGap(let expected, let received):
            "expected PictureID \(expected), got \(received.map(String.init) ?? "none")"
        }
    }
}
