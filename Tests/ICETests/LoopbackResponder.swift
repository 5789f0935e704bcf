import Glibc
import MediaCore
import Synchronization

/// A UDP socket on 127.0.0.1 that answers each datagram with whatever `respond` returns for it
/// (nothing for nil), from a thread of its own. Loopback only: a test sends nothing off the
/// machine.
final class LoopbackResponder: Sendable {
    typealias Respond = @Sendable (_ request: [UInt8], _ sourcePort: UInt16) -> [UInt8]?

    let port: UInt16
    private let fd: Int32
    private let respond: Respond
    private let running = Mutex(true)
    private let received = Mutex<[[UInt8]]>([])
    private let thread = Mutex<MediaThread?>(nil)

    init(respond: @escaping Respond) throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else {
            close(fd)
            throw ICETestError("cannot bind a loopback responder: errno \(errno)")
        }
        self.fd = fd
        self.respond = respond
        port = UInt16(bigEndian: address.sin_port)
        thread.withLock { $0 = MediaThread(name: "test.responder") { [self] in serve() } }
    }

    deinit { close(fd) }

    /// Every datagram received so far.
    var datagrams: [[UInt8]] { received.withLock { $0 } }

    func stop() {
        running.withLock { $0 = false }
        thread.withLock { $0 }?.join()
    }

    private func serve() {
        var buffer = [UInt8](repeating: 0, count: 1_500)
        while running.withLock({ $0 }) {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 50) == 1 else { continue }
            var source = sockaddr_in()
            var sourceLength = socklen_t(MemoryLayout<sockaddr_in>.size)
            let count = withUnsafeMutablePointer(to: &source) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, &buffer, buffer.count, 0, $0, &sourceLength) }
            }
            guard count > 0 else { continue }
            let request = Array(buffer[..<count])
            received.withLock { $0.append(request) }
            guard let response = respond(request, UInt16(bigEndian: source.sin_port)) else { continue }
            _ = withUnsafePointer(to: &source) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, response, response.count, 0, $0, sourceLength) }
            }
        }
    }
}
