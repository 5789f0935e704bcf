import Glibc
import SystemPackage

/// A failed socket call: the operation, the errno and the C library's text for it.
/// Example: `SocketError: connect to 127.0.0.1:5004 failed: Network is unreachable (errno 101)`.
public struct SocketError: Error, Sendable, Hashable, CustomStringConvertible {
    public let operation: String
    public let errno: Errno

    public init(_ operation: String, errno: Errno) {
        self.operation = operation
        self.errno = errno
    }

    /// The error for the calling thread's current `errno`.
    static func fromErrno(_ operation: String) -> SocketError {
        SocketError(operation, errno: Errno(rawValue: Glibc.errno))
    }

    public var description: String {
        "SocketError: \(operation) failed: \(errno) (errno \(errno.rawValue))"
    }
}

/// The one place that restarts socket, epoll and eventfd calls interrupted by a signal (EINTR),
/// which swift-system's `FileDescriptor` does not wrap. Returns the call's result; on failure
/// `errno` still holds the cause.
@inline(__always)
func retryingOnInterrupt<Result: BinaryInteger>(_ call: () -> Result) -> Result {
    while true {
        let result = call()
        if result >= 0 || errno != EINTR { return result }
    }
}
