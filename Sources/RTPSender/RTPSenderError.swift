import Transport

/// Why an `RTPVideoSender` could not start or had to stop.
public enum RTPSenderError: Error, Sendable, CustomStringConvertible {
    case invalidExtensionID(UInt8)
    /// Two header extensions were given the same ID.
    case duplicateExtensionID(UInt8)
    /// The MTU leaves no room for one byte of payload after the headers and the SRTP tag.
    case mtuTooSmall(mtu: Int, minimum: Int)
    case socket(SocketError)
    case srtp(SRTPError)

    public var description: String {
        switch self {
        case .invalidExtensionID(let id):
            "RTP header extension ID \(id) is outside 1...14"
        case .duplicateExtensionID(let id):
            "RTP header extension ID \(id) is used twice"
        case .mtuTooSmall(let mtu, let minimum):
            "MTU \(mtu) is too small: these RTP headers need at least \(minimum) bytes"
        case .socket(let error):
            "\(error)"
        case .srtp(let error):
            "\(error)"
        }
    }
}
