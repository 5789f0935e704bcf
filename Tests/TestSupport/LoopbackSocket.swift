import Glibc
import RTP
import SystemPackage
import Transport

/// A plain bound UDP socket on loopback that plays the remote peer in tests.
public final class LoopbackSocket {
    public private(set) var fd: Int32
    public let ipv6: Bool
    /// Where the socket listens, such as 127.0.0.1:40000.
    public let endpoint: Endpoint

    /// - Parameter otherHost: bind IPv4 127.0.0.2 instead of 127.0.0.1, to play a host other than
    ///   the receiver (the whole 127/8 range is loopback on Linux).
    public init(ipv6: Bool, port: UInt16 = 0, otherHost: Bool = false) throws {
        self.ipv6 = ipv6
        // Close-on-exec: a program the test starts must not hold the port (a receiver started later binds it).
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        precondition(fd >= 0)
        var bufferBytes: Int32 = 4 << 20
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bufferBytes, socklen_t(MemoryLayout<Int32>.size))
        var (storage, length) = Self.loopback(ipv6: ipv6, port: port, host: otherHost ? 0x7F00_0002 : 0x7F00_0001)
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else {
            let code = errno
            Glibc.close(fd)
            throw SocketError("bind test socket", errno: Errno(rawValue: code))
        }
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let boundPort = withUnsafeBytes(of: storage) { raw in
            UInt16(bigEndian: ipv6 ? raw.load(as: sockaddr_in6.self).sin6_port : raw.load(as: sockaddr_in.self).sin_port)
        }
        self.fd = fd
        endpoint = try Endpoint(parsing: ipv6 ? "[::1]:\(boundPort)" : "127.0.0.\(otherHost ? 2 : 1):\(boundPort)")
    }

    deinit { close() }

    /// Closes the socket now, freeing its port for another program; later calls do nothing.
    public func close() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }

    /// The next datagram, or nil if none arrives within `timeoutMilliseconds`.
    public func receive(timeoutMilliseconds: Int32 = 1_000) -> [UInt8]? {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, timeoutMilliseconds) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = recv(fd, &buffer, buffer.count, 0)
        return count >= 0 ? Array(buffer[..<count]) : nil
    }

    /// Sends `bytes` from this socket to a loopback port.
    public func send(_ bytes: [UInt8], toPort port: UInt16) throws {
        var (storage, length) = Self.loopback(ipv6: ipv6, port: port)
        let sent = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, bytes, bytes.count, 0, $0, length) }
        }
        guard sent == bytes.count else { throw SocketError("sendto test socket", errno: Errno(rawValue: errno)) }
    }

    private static func loopback(ipv6: Bool, port: UInt16, host: UInt32 = 0x7F00_0001) -> (sockaddr_storage, socklen_t) {
        var storage = sockaddr_storage()
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_addr = in6addr_loopback
            withUnsafeBytes(of: address) { raw in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: raw) } }
            return (storage, socklen_t(MemoryLayout<sockaddr_in6>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = host.bigEndian
        withUnsafeBytes(of: address) { raw in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: raw) } }
        return (storage, socklen_t(MemoryLayout<sockaddr_in>.size))
    }
}

extension LoopbackSocket {
    public struct NothingWaiting: Error {}

    /// Receives one datagram into `slot` without blocking, or throws `NothingWaiting`; shaped for
    /// `RTPPacketBatch.append`, which then leaves the batch unchanged.
    public func receive(into slot: UnsafeMutableRawBufferPointer) throws(NothingWaiting) -> Int {
        let count = recv(fd, slot.baseAddress, slot.count, Int32(MSG_DONTWAIT))
        guard count >= 0 else { throw NothingWaiting() }
        return count
    }

    /// Waits up to `timeoutMilliseconds` for a datagram.
    public func waitUntilReadable(timeoutMilliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, timeoutMilliseconds) == 1
    }
}
