import Glibc

/// Why the control socket could not be set up or reached, in words a person can act on.
public enum ControlSocketError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The path cannot hold a control socket: too long, in a missing folder, taken by a file
    /// that is not a socket, or by a stream that is still running.
    case badPath(path: String, reason: String)
    /// No stream answers at the path: nothing there, or the stream has ended.
    case notReachable(path: String, reason: String)
    /// A system call failed.
    case system(operation: String, path: String, code: Int32)

    static func notASocketFile(_ path: String) -> ControlSocketError {
        .badPath(path: path, reason: "exists and is not a socket; refusing to replace it")
    }

    static func missingFolder(_ path: String) -> ControlSocketError {
        .badPath(path: path, reason: "its folder does not exist")
    }

    public var description: String {
        switch self {
        case .badPath(let path, let reason):
            "control socket \(path): \(reason)"
        case .notReachable(let path, let reason):
            "control socket \(path): \(reason)"
        case .system(let operation, let path, let code):
            "control socket \(path): \(operation) failed: \(String(cString: strerror(code))) (errno \(code))"
        }
    }
}

/// A `sockaddr_un` for a filesystem path.
struct UnixSocketAddress {
    /// `sun_path` less its terminating NUL: 107 bytes on Linux.
    static let maximumPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    private var address = sockaddr_un()

    init(path: String) throws(ControlSocketError) {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, !bytes.contains(0) else { throw .badPath(path: path, reason: "is not a file name") }
        guard bytes.count <= Self.maximumPathBytes else {
            throw .badPath(path: path, reason: "is \(bytes.count) bytes long; a socket path has at most \(Self.maximumPathBytes)")
        }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
    }

    func withSocketAddress<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        withUnsafePointer(to: address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}

/// A new stream socket for the Unix domain, closed on exec.
func makeUnixSocket(path: String) throws(ControlSocketError) -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw .system(operation: "socket", path: path, code: errno) }
    return fd
}
