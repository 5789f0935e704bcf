import CLinux
import Glibc
import Logging
import RTP
import SystemPackage

/// What a `UDPTransport` has sent, received and dropped. Dropped packets are counted, not thrown.
public struct UDPTransportStatistics: Sendable, Hashable {
    public var packetsSent: UInt64 = 0
    public var bytesSent: UInt64 = 0
    /// `sendmmsg` calls that sent at least one packet.
    public var sendCalls: UInt64 = 0
    /// Packets given to `send` that did not leave, for one of the reasons below.
    public var packetsDropped: UInt64 = 0
    /// ICMP port unreachable reports: nobody listened at the peer when an earlier packet arrived
    /// (RFC 1122 section 4.1.3.3). Sending goes on.
    public var connectionRefused: UInt64 = 0
    /// EAGAIN: the socket send buffer stayed full beyond the stall budget.
    public var wouldBlock: UInt64 = 0
    /// ENOBUFS: the kernel or the interface queue had no room.
    public var noBufferSpace: UInt64 = 0
    /// EMSGSIZE: a packet larger than the path allows; only that packet is dropped.
    public var messageTooLong: UInt64 = 0
    /// Any other send error (for example ENETUNREACH); the rest of that batch is dropped.
    public var otherErrors: UInt64 = 0
    /// The errno of the latest `otherErrors` entry, 0 if none.
    public var lastOtherErrno: Int32 = 0
    /// Datagrams received from the peer.
    public var packetsReceived: UInt64 = 0
    public var bytesReceived: UInt64 = 0
    /// Received datagrams longer than the caller's buffer, delivered cut short.
    public var packetsTruncated: UInt64 = 0
    /// Datagrams from any host but the peer: read, counted and thrown away.
    public var datagramsFromOthers: UInt64 = 0

    public init() {}
}

/// A UDP socket (IPv4 or IPv6) bound to a local port that exchanges datagrams with one peer: it
/// sends a ``RTPPacketBatch`` with one `sendmmsg` call and receives what the peer sends back
/// (RTCP feedback) without blocking.
///
/// The socket is not connected, so that datagrams from other addresses reach it and can be
/// counted before they are discarded (a connected socket has the kernel drop them unseen). ICMP
/// errors still arrive through the error queue (`IP_RECVERR`, ip(7)), so a peer that is not
/// listening is reported as on a connected socket, and counted, never fatal.
///
/// The message and I/O vector arrays are allocated once and reused; they grow only for a batch
/// bigger than any before it. The socket is nonblocking: a full send buffer stalls the caller at
/// most `sendStallMilliseconds` before the rest of the batch is dropped and counted.
///
/// Owned by one thread (the send thread); not `Sendable`.
public final class UDPTransport {
    public let remote: Endpoint
    /// The bound local address and port.
    public let local: Endpoint
    /// The send buffer the kernel granted, in bytes (Linux reports twice the requested value).
    public let sendBufferBytes: Int
    /// The longest a send waits for room in a full socket buffer before dropping.
    public let sendStallMilliseconds: Int32
    public private(set) var statistics = UDPTransportStatistics()

    private let fd: Int32
    private let logger: Logger
    private var messages: UnsafeMutablePointer<camrtp_mmsghdr>
    private var vectors: UnsafeMutablePointer<iovec>
    private var vectorCapacity: Int
    /// The peer's address, built once: every message names it.
    private let peerAddress: UnsafeMutablePointer<sockaddr_storage>
    private let peerAddressLength: socklen_t
    /// Where `receive` and the error queue put the sender's address and control data.
    private let sourceAddress: UnsafeMutablePointer<sockaddr_storage>
    private let controlBuffer: UnsafeMutableRawBufferPointer

    /// Opens a socket bound to `localPort` (0 for any) on the wildcard address of `remote`'s
    /// family, for datagrams to and from `remote`.
    /// - Parameter sendBufferBytes: requested SO_SNDBUF; best effort (a keyframe burst at
    ///   1.5 Mbit/s is tens of packets, which the Linux default of ~208 KiB already holds, but a
    ///   pacer falling behind should not drop).
    public init(
        remote: Endpoint,
        localPort: UInt16 = 0,
        sendBufferBytes: Int = 2 << 20,
        sendStallMilliseconds: Int32 = 20,
        reservedPackets: Int = 64,
        logger: Logger = Logger(label: "camrtp.transport")
    ) throws(SocketError) {
        let isIPv4 = remote.family == .ipv4
        let type = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        let fd = socket(isIPv4 ? AF_INET : AF_INET6, type, 0)
        guard fd >= 0 else { throw .fromErrno("socket for \(remote)") }
        func fail(_ operation: String) -> SocketError {
            let error = SocketError.fromErrno(operation)
            close(fd)
            return error
        }

        Self.setSendBuffer(fd: fd, bytes: sendBufferBytes)
        var enable: Int32 = 1
        let reportsErrors = isIPv4
            ? setsockopt(fd, Int32(IPPROTO_IP), IP_RECVERR, &enable, socklen_t(MemoryLayout<Int32>.size))
            : setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_RECVERR, &enable, socklen_t(MemoryLayout<Int32>.size))
        guard reportsErrors == 0 else { throw fail("setsockopt IP_RECVERR") }
        let wildcard = Endpoint(family: remote.family, addressBytes: [UInt8](repeating: 0, count: isIPv4 ? 4 : 16), port: localPort)
        guard wildcard.withSocketAddress({ bind(fd, $0, $1) }) == 0 else {
            throw fail("bind to \(wildcard)")
        }
        var storage = sockaddr_storage()
        var storageLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &storageLength) }
        }
        guard named == 0, let local = Endpoint(socketAddress: storage) else {
            throw fail("getsockname")
        }

        self.fd = fd
        self.remote = remote
        self.local = local
        self.sendBufferBytes = Self.socketOption(fd: fd, SO_SNDBUF)
        self.sendStallMilliseconds = sendStallMilliseconds
        self.logger = logger
        self.vectorCapacity = Swift.max(1, reservedPackets)
        self.messages = .allocate(capacity: vectorCapacity)
        self.vectors = .allocate(capacity: vectorCapacity)
        let peerAddress = UnsafeMutablePointer<sockaddr_storage>.allocate(capacity: 1)
        peerAddress.initialize(to: sockaddr_storage())
        peerAddressLength = remote.withSocketAddress { address, length in
            UnsafeMutableRawPointer(peerAddress).copyMemory(from: address, byteCount: Int(length))
            return length
        }
        self.peerAddress = peerAddress
        sourceAddress = .allocate(capacity: 1)
        sourceAddress.initialize(to: sockaddr_storage())
        controlBuffer = .allocate(byteCount: 512, alignment: 16)
        if self.sendBufferBytes < sendBufferBytes {
            logger.info("UDP send buffer smaller than requested",
                        metadata: ["requested": "\(sendBufferBytes)", "granted": "\(self.sendBufferBytes)"])
        }
        logger.debug("UDP transport open", metadata: ["local": "\(local)", "remote": "\(remote)"])
    }

    deinit {
        close(fd)
        messages.deallocate()
        vectors.deallocate()
        peerAddress.deallocate()
        sourceAddress.deallocate()
        controlBuffer.deallocate()
    }

    /// The socket, for an event loop to watch; it stays owned by this transport.
    public var fileDescriptor: Int32 { fd }

    /// Message slots allocated so far; grows only for a batch bigger than any before it.
    public var reservedPackets: Int { vectorCapacity }

    /// Opens the companion RTCP transport: to `remote.defaultRTCPEndpoint` (RTP port + 1, RFC 3550
    /// section 11) unless `rtcpRemote` says otherwise (RFC 3605 `a=rtcp:`), from `localPort`.
    public func makeRTCPTransport(rtcpRemote: Endpoint? = nil, localPort: UInt16 = 0) throws(SocketError) -> UDPTransport {
        guard let destination = rtcpRemote ?? remote.defaultRTCPEndpoint else {
            throw SocketError("choosing the RTCP port (RTP port + 1) for \(remote)", errno: .invalidArgument)
        }
        return try UDPTransport(remote: destination, localPort: localPort,
                                sendBufferBytes: Swift.min(sendBufferBytes, 256 << 10),
                                sendStallMilliseconds: sendStallMilliseconds, reservedPackets: 4, logger: logger)
    }

    /// Sends every packet of `batch` in order with as few `sendmmsg` calls as the kernel allows
    /// (one, normally). Returns how many packets left; the others are counted in `statistics`.
    @discardableResult
    public func send(_ batch: RTPPacketBatch) -> Int {
        let count = batch.count
        guard count > 0 else { return 0 }
        reserve(count)
        for index in 0..<count {
            let packet = batch[index]
            vectors[index] = iovec(iov_base: UnsafeMutableRawPointer(mutating: packet.baseAddress),
                                   iov_len: packet.count)
        }
        return sendPrepared(count)
    }

    /// Sends one datagram, such as an RTCP compound packet. Returns whether it left.
    @discardableResult
    public func send(_ packet: UnsafeRawBufferPointer) -> Bool {
        vectors[0] = iovec(iov_base: UnsafeMutableRawPointer(mutating: packet.baseAddress), iov_len: packet.count)
        return sendPrepared(1) == 1
    }

    /// Receives the next datagram from the peer's host into `buffer` without blocking. Returns
    /// its length, or `nil` when none is waiting. Datagrams from other hosts are counted in
    /// `datagramsFromOthers` and skipped; pending ICMP errors are counted and skipped.
    public func receive(into buffer: UnsafeMutableRawBufferPointer) throws(SocketError) -> Int? {
        while true {
            var addressLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let received = retryingOnInterrupt {
                sourceAddress.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    recvfrom(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT) | Int32(MSG_TRUNC), $0, &addressLength)
                }
            }
            if received >= 0 {
                guard isPeer(sourceAddress, length: addressLength) else {
                    statistics.datagramsFromOthers += 1
                    continue
                }
                statistics.packetsReceived += 1
                statistics.bytesReceived += UInt64(received)
                if received > buffer.count { statistics.packetsTruncated += 1 }
                return Swift.min(received, buffer.count)
            }
            switch errno {
            case EAGAIN, EWOULDBLOCK:
                return nil
            case ECONNREFUSED:
                drainErrorQueue()
            default:
                throw .fromErrno("recv from \(remote)")
            }
        }
    }

    /// Waits up to `timeoutMilliseconds` (-1: forever) for a datagram. Returns whether one is ready.
    public func waitUntilReadable(timeoutMilliseconds: Int32) throws(SocketError) -> Bool {
        try poll(events: Int16(POLLIN), timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Reads the ICMP reports the kernel queued for this socket (an event loop calls it when the
    /// socket signals an error) and counts refusals: a queue left full would keep signalling.
    public func drainErrorQueue() {
        while true {
            // The error queue returns the offending datagram's start too; it is not needed.
            var message = msghdr(
                msg_name: UnsafeMutableRawPointer(sourceAddress), msg_namelen: socklen_t(MemoryLayout<sockaddr_storage>.size),
                msg_iov: nil, msg_iovlen: 0, msg_control: controlBuffer.baseAddress,
                msg_controllen: controlBuffer.count, msg_flags: 0)
            guard retryingOnInterrupt({ recvmsg(fd, &message, Int32(MSG_ERRQUEUE) | Int32(MSG_DONTWAIT)) }) >= 0 else { return }
            var header = camrtp_cmsg_first(&message)
            while let current = header {
                let isIPError = (current.pointee.cmsg_level == Int32(IPPROTO_IP) && current.pointee.cmsg_type == IP_RECVERR)
                    || (current.pointee.cmsg_level == Int32(IPPROTO_IPV6) && current.pointee.cmsg_type == IPV6_RECVERR)
                if isIPError, camrtp_cmsg_extended_error(current).pointee.ee_errno == UInt32(ECONNREFUSED) {
                    noteRefusal()
                }
                header = camrtp_cmsg_next(&message, current)
            }
        }
    }

    // MARK: - Sending

    /// Sends `vectors[0..<count]` to the peer. EINTR restarts; ECONNREFUSED (an ICMP report that
    /// the kernel clears on delivery and that stopped only the current packet) retries that packet
    /// once; a full buffer waits once, then drops the rest of the batch.
    private func sendPrepared(_ count: Int) -> Int {
        for index in 0..<count {
            messages[index] = camrtp_mmsghdr(
                msg_hdr: msghdr(msg_name: UnsafeMutableRawPointer(peerAddress), msg_namelen: peerAddressLength,
                                msg_iov: vectors + index, msg_iovlen: 1, msg_control: nil, msg_controllen: 0, msg_flags: 0),
                msg_len: 0)
        }
        // A nested function capturing these counters would box them on the heap, so the loop
        // keeps them as plain locals.
        var next = 0
        var dropped = 0
        var retriedRefusal = false
        var waitedForRoom = false
        while next < count {
            let sent = Int(retryingOnInterrupt { camrtp_sendmmsg(fd, messages + next, UInt32(count - next), 0) })
            if sent > 0 {
                statistics.sendCalls += 1
                statistics.packetsSent += UInt64(sent)
                for index in next..<(next + sent) { statistics.bytesSent += UInt64(messages[index].msg_len) }
                next += sent
                retriedRefusal = false
                waitedForRoom = false
                continue
            }
            let code = errno
            var dropUpTo = next
            switch code {
            case ECONNREFUSED:
                drainErrorQueue()
                if retriedRefusal { dropUpTo = next + 1 }
                retriedRefusal.toggle()
            case EAGAIN, EWOULDBLOCK, ENOBUFS:
                if !waitedForRoom, (try? poll(events: Int16(POLLOUT), timeoutMilliseconds: sendStallMilliseconds)) == true {
                    waitedForRoom = true
                    continue
                }
                if code == ENOBUFS { statistics.noBufferSpace += 1 } else { statistics.wouldBlock += 1 }
                dropUpTo = count
            case EMSGSIZE:
                statistics.messageTooLong += 1
                dropUpTo = next + 1
            default:
                statistics.otherErrors += 1
                statistics.lastOtherErrno = code
                if statistics.otherErrors == 1 {
                    logger.info("UDP send failed; dropping and going on",
                                metadata: ["error": "\(SocketError("sendmmsg to \(remote)", errno: Errno(rawValue: code)))"])
                }
                dropUpTo = count
            }
            dropped += dropUpTo - next
            next = dropUpTo
        }
        statistics.packetsDropped += UInt64(dropped)
        return count - dropped
    }

    private func noteRefusal() {
        statistics.connectionRefused += 1
        if statistics.connectionRefused == 1 {
            logger.info("receiver not listening yet (ICMP port unreachable); still sending", metadata: ["remote": "\(remote)"])
        }
    }

    /// Whether the address the kernel filled in is the peer's host: same family and IP address
    /// (IPv6 flow labels and scope ids aside), from any port, since receivers commonly send RTCP
    /// from a port other than the one they receive on (GStreamer's RTCP udpsink without
    /// `bind-port`). Compares bytes in place, so a flood of foreign datagrams costs no allocation.
    private func isPeer(_ address: UnsafeMutablePointer<sockaddr_storage>, length: socklen_t) -> Bool {
        guard length == peerAddressLength, address.pointee.ss_family == peerAddress.pointee.ss_family else { return false }
        let received = UnsafeRawPointer(address), expected = UnsafeRawPointer(peerAddress)
        if remote.family == .ipv4 {
            return received.load(fromByteOffset: 4, as: UInt32.self) == expected.load(fromByteOffset: 4, as: UInt32.self)
        }
        // sockaddr_in6: family 2, port 2, flow info 4, address 16.
        return memcmp(received + 8, expected + 8, 16) == 0
    }

    private func reserve(_ count: Int) {
        guard count > vectorCapacity else { return }
        messages.deallocate()
        vectors.deallocate()
        messages = .allocate(capacity: count)
        vectors = .allocate(capacity: count)
        vectorCapacity = count
    }

    private func poll(events: Int16, timeoutMilliseconds: Int32) throws(SocketError) -> Bool {
        var descriptor = pollfd(fd: fd, events: events, revents: 0)
        let ready = retryingOnInterrupt { Glibc.poll(&descriptor, 1, timeoutMilliseconds) }
        guard ready >= 0 else { throw .fromErrno("poll") }
        return ready > 0
    }

    // MARK: - Socket options

    /// Asks for `bytes` of send buffer: SO_SNDBUFFORCE passes the system cap (`net.core.wmem_max`)
    /// when privileged; otherwise SO_SNDBUF gets what the cap allows.
    private static func setSendBuffer(fd: Int32, bytes: Int) {
        var value = Int32(clamping: bytes)
        let size = socklen_t(MemoryLayout<Int32>.size)
        if setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &value, size) != 0 {
            _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &value, size)
        }
    }

    private static func socketOption(fd: Int32, _ option: Int32) -> Int {
        var value: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, SOL_SOCKET, option, &value, &size) == 0 ? Int(value) : 0
    }
}
