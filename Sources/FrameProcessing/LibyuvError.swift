/// A libyuv call that failed, with the operation, its return code, and what was wrong.
public struct LibyuvError: Error, CustomStringConvertible, Sendable {
    public let operation: String
    public let code: Int32
    public let detail: String

    public var description: String { "libyuv \(operation) failed: \(detail) (code \(code))" }
}
