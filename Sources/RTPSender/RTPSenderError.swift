import RTPSession
import Transport

/// Why an `RTPVideoSender` could not start or had to stop.
public enum RTPSenderError: Error, Sendable, CustomStringConvertible {
    case session(SendSessionError)
    case socket(SocketError)
    case srtp(SRTPError)

    public var description: String {
        switch self {
        case .session(let error): "\(error)"
        case .socket(let error): "\(error)"
        case .srtp(let error): "\(error)"
        }
    }
}
