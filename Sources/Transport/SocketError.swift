import Glibc

/// A failed socket call: the operation, the errno and the C library's text for it.
/// Example: `SocketError: connect to 127.0.0.1:5004 failed: Network is unreachable (errno 101)`.
public struct SocketError: Error, Sendable, Hashable, CustomStringConvertible {
    public let operation: String
    public let code: Int32

    public init(_ operation: String, code: Int32) {
        self.operation = operation
        self.code = code
    }

    /// The error for the calling thread's current `errno`.
    static func fromErrno(_ operation: String) -> SocketError {
        SocketError(operation, code: errno)
    }

    public var description: String {
        "SocketError: \(operation) failed: \(String(cString: strerror(code))) (errno \(code))"
    }
}

/// The one place that restarts system calls interrupted by a signal (EINTR). Returns the call's
/// result; on failure `errno` still holds the cause.
@inline(__always)
func retryingOnInterrupt<Result: BinaryInteger>(_ call: () -> Result) -> Result {
    while true {
        let result = call()
        if result >= 0 || errno != EINTR { return result }
    }
}
