import Logging
import RTP
import Synchronization
import Transport

/// A way to the peer that the application supplies instead of a UDP socket pair: a WebRTC
/// connection (ICE + DTLS-SRTP on one 5-tuple, RFC 7983), say. The sender hands it protected
/// datagrams (SRTP and SRTCP, multiplexed per RFC 5761) and takes the SRTCP the peer sends back.
public protocol MediaTransport: AnyObject, Sendable {
    /// Sends one datagram to the peer. Called on the send thread, for every packet: it must not
    /// block for long and should not allocate. Returns whether it left.
    func send(_ datagram: UnsafeRawBufferPointer) -> Bool
    /// From now on, hands every RTCP datagram the peer sends (still protected) to `receive`, on
    /// any thread; `receive` copies it.
    func startReceiving(_ receive: @escaping @Sendable (UnsafeRawBufferPointer) -> Void)
}

/// Where the stream goes.
public enum SenderRoute: Sendable {
    /// Plain UDP: RTP to `destination`, RTCP to `rtcpDestination` (nil: multiplexed on the RTP
    /// port, RFC 5761), both from `localPort` and the next one (0: any free port).
    case udp(destination: Endpoint, rtcpDestination: Endpoint?, localPort: UInt16)
    /// A transport the application built, such as a WebRTC connection.
    case transport(any MediaTransport)
}

/// The send loop's way to the peer: what it sends through and where feedback comes from.
protocol Pathway: AnyObject {
    /// Sends a batch of media packets; returns how many left.
    func sendMedia(_ batch: RTPPacketBatch) -> Int
    /// Sends one RTCP datagram.
    func sendControl(_ datagram: UnsafeRawBufferPointer) -> Bool
    /// Readies feedback to wake `eventLoop`: sockets to watch or a queue to fill.
    func watch(with eventLoop: EventLoop) throws(SocketError)
    /// Copies the next feedback datagram into `buffer`, if one is waiting; `token` names what
    /// the event loop reported readable (nil: a wake-up).
    func nextFeedback(into buffer: UnsafeMutableRawBufferPointer, token: Int?) -> Int?
    /// Reads what an error report from `token` is about (ICMP errors on a socket).
    func handleError(token: Int)
    /// Feedback refused before it reached the loop (foreign addresses, a full queue), so far.
    var refusedFeedback: UInt64 { get }
    var statistics: UDPTransportStatistics { get }
}

/// RTP and RTCP over UDP sockets of our own (one with rtcp-mux).
final class UDPPathway: Pathway {
    static let rtpToken = 0
    static let rtcpToken = 1

    let rtp: UDPTransport
    /// The same object as `rtp` with rtcp-mux.
    let rtcp: UDPTransport

    init(destination: Endpoint, rtcpDestination: Endpoint?, localPort: UInt16, logger: Logger) throws(SocketError) {
        rtp = try UDPTransport(remote: destination, localPort: localPort, logger: logger)
        if let rtcpDestination {
            rtcp = try rtp.makeRTCPTransport(rtcpRemote: rtcpDestination, localPort: localPort == 0 ? 0 : localPort &+ 1)
        } else {
            rtcp = rtp
        }
    }

    func sendMedia(_ batch: RTPPacketBatch) -> Int { rtp.send(batch) }

    func sendControl(_ datagram: UnsafeRawBufferPointer) -> Bool { rtcp.send(datagram) }

    func watch(with eventLoop: EventLoop) throws(SocketError) {
        try eventLoop.watch(fd: rtp.fileDescriptor, token: Self.rtpToken)
        if rtcp !== rtp { try eventLoop.watch(fd: rtcp.fileDescriptor, token: Self.rtcpToken) }
    }

    func nextFeedback(into buffer: UnsafeMutableRawBufferPointer, token: Int?) -> Int? {
        guard let token else { return nil }
        // A socket error here (not a missing datagram) is not the stream's end: read on later.
        return (try? (token == Self.rtpToken ? rtp : rtcp).receive(into: buffer)) ?? nil
    }

    func handleError(token: Int) {
        (token == Self.rtpToken ? rtp : rtcp).drainErrorQueue()
    }

    var refusedFeedback: UInt64 {
        rtp.statistics.datagramsFromOthers + (rtcp === rtp ? 0 : rtcp.statistics.datagramsFromOthers)
    }

    var statistics: UDPTransportStatistics { rtp.statistics }
}

/// Datagrams through a `MediaTransport`; its feedback arrives on another thread and waits in a
/// bounded queue of fixed buffers that wakes the loop.
final class ExternalPathway: Pathway, @unchecked Sendable {
    let transport: any MediaTransport
    private let queue = InboundDatagramQueue(capacity: 64, datagramCapacity: 2_048)
    private var counters = UDPTransportStatistics()

    init(transport: any MediaTransport) {
        self.transport = transport
    }

    func sendMedia(_ batch: RTPPacketBatch) -> Int {
        var sent = 0
        for index in 0..<batch.count where transport.send(batch[index]) {
            sent += 1
            counters.bytesSent += UInt64(batch.length(at: index))
        }
        counters.packetsSent += UInt64(sent)
        counters.packetsDropped += UInt64(batch.count - sent)
        return sent
    }

    func sendControl(_ datagram: UnsafeRawBufferPointer) -> Bool { transport.send(datagram) }

    func watch(with eventLoop: EventLoop) throws(SocketError) {
        let waker = eventLoop.waker
        transport.startReceiving { [queue] datagram in
            if queue.push(datagram) { waker.wake() }
        }
    }

    func nextFeedback(into buffer: UnsafeMutableRawBufferPointer, token: Int?) -> Int? {
        queue.pop(into: buffer)
    }

    func handleError(token: Int) {}

    var refusedFeedback: UInt64 { queue.dropped }

    var statistics: UDPTransportStatistics { counters }
}

/// A bounded queue of datagrams copied into preallocated buffers: filled on one thread, emptied
/// on another, nothing allocated per datagram. When full, new datagrams are dropped and counted.
/// The buffers are touched only under the lock, which makes the unchecked `Sendable` sound.
final class InboundDatagramQueue: @unchecked Sendable {
    private struct State {
        var lengths: [Int]
        var head = 0
        var count = 0
        var dropped: UInt64 = 0
    }

    private let storage: UnsafeMutableRawBufferPointer
    private let datagramCapacity: Int
    private let capacity: Int
    private let state: Mutex<State>

    init(capacity: Int, datagramCapacity: Int) {
        self.capacity = capacity
        self.datagramCapacity = datagramCapacity
        storage = .allocate(byteCount: capacity * datagramCapacity, alignment: 16)
        state = Mutex(State(lengths: [Int](repeating: 0, count: capacity)))
    }

    deinit {
        storage.deallocate()
    }

    /// Copies `datagram` in (cut to the buffer size); false when the queue was full.
    func push(_ datagram: UnsafeRawBufferPointer) -> Bool {
        state.withLock { state in
            guard state.count < capacity else {
                state.dropped += 1
                return false
            }
            let slot = (state.head + state.count) % capacity
            let length = min(datagram.count, datagramCapacity)
            UnsafeMutableRawBufferPointer(rebasing: storage[(slot * datagramCapacity)..<(slot * datagramCapacity + length)])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: datagram[0..<length]))
            state.lengths[slot] = length
            state.count += 1
            return true
        }
    }

    /// Moves the oldest datagram into `buffer`; nil when empty.
    func pop(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        state.withLock { state in
            guard state.count > 0 else { return nil }
            let slot = state.head
            let length = min(state.lengths[slot], buffer.count)
            UnsafeMutableRawBufferPointer(rebasing: buffer[0..<length])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: storage[(slot * datagramCapacity)..<(slot * datagramCapacity + length)]))
            state.head = (state.head + 1) % capacity
            state.count -= 1
            return length
        }
    }

    var dropped: UInt64 { state.withLock { $0.dropped } }
}
