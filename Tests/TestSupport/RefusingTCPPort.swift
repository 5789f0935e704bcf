import Glibc

/// A TCP port on 127.0.0.1 that is bound but never listens: connecting to it is refused at
/// once, and no other program can take it while this lives.
public final class RefusingTCPPort {
    public let port: UInt16
    private let fd: Int32

    public struct Failure: Error {}

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure() }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else {
            close(fd)
            throw Failure()
        }
        self.fd = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit {
        close(fd)
    }
}
