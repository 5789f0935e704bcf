/// A failed ICE operation: what was attempted and why it failed, in libnice's or the system's words.
/// Example: `ICEError: resolve STUN server stun.example.org failed: Name or service not known`.
public struct ICEError: Error, Sendable, Hashable, CustomStringConvertible {
    public let operation: String
    public let detail: String

    public init(_ operation: String, detail: String) {
        self.operation = operation
        self.detail = detail
    }

    public var description: String { "ICEError: \(operation) failed: \(detail)" }
}
