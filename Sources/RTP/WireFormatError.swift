/// Why a wire structure could not be read or written.
public enum WireFormatError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input ended before the structure did.
    case truncated(structure: String, needed: Int, available: Int)
    /// The input has the right length but a field holds a value the format forbids.
    case invalid(structure: String, reason: String)
    /// The caller's output buffer cannot hold the serialised structure.
    case bufferTooSmall(structure: String, needed: Int, available: Int)

    public var description: String {
        switch self {
        case .truncated(let structure, let needed, let available):
            "\(structure) is truncated: needs \(needed) bytes, got \(available)"
        case .invalid(let structure, let reason):
            "\(structure) is invalid: \(reason)"
        case .bufferTooSmall(let structure, let needed, let available):
            "\(structure) needs \(needed) bytes of buffer, got \(available)"
        }
    }
}
