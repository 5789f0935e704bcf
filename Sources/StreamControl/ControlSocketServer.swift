import Dispatch
import Glibc
import MediaCore
import Synchronization

/// Bounds that keep one misbehaving client from hurting the stream.
public struct ControlSocketLimits: Sendable {
    /// A longer line is answered with an error and its connection closed.
    public var maximumLineBytes: Int
    /// Connections past this get an error line and are closed at once.
    public var maximumConnections: Int
    /// Commands from all connections together: a burst, then a steady rate.
    public var commandsPerSecond: Double
    public var burst: Int
    /// A connection that sends nothing for this long is closed.
    public var idleTimeoutMs: Int

    public init(
        maximumLineBytes: Int = 4096, maximumConnections: Int = 4, commandsPerSecond: Double = 10, burst: Int = 20,
        idleTimeoutMs: Int = 30_000
    ) {
        self.maximumLineBytes = maximumLineBytes
        self.maximumConnections = maximumConnections
        self.commandsPerSecond = commandsPerSecond
        self.burst = burst
        self.idleTimeoutMs = idleTimeoutMs
    }
}

/// A Unix-domain socket that takes `StreamCommand`s for a running stream, one JSON object per
/// line, and answers each with one line of `StreamControlReply`, on a thread of its own
/// (`camrtp.ctl`). `handler` gets one command at a time and calls `reply` once, from any
/// thread; the server waits for it before reading on, so commands never overlap.
///
/// The socket file is created with mode 0600 (only its user may connect), never replaces a
/// file that is not a socket, takes over a socket left by a stream that ended, refuses one that
/// a running stream still listens on, and is removed by `stop()`.
public final class ControlSocketServer: Sendable {
    public typealias Handler = @Sendable (_ command: StreamCommand, _ reply: @escaping @Sendable (StreamControlReply) -> Void) -> Void

    public let path: String
    private let loop: ControlSocketLoop
    private let thread: MediaThread

    public init(
        path: String, limits: ControlSocketLimits = ControlSocketLimits(), handler: @escaping Handler
    ) throws(ControlSocketError) {
        self.path = path
        let loop = try ControlSocketLoop(listener: try ListeningSocket(path: path), limits: limits, handler: handler)
        self.loop = loop
        thread = MediaThread(name: "camrtp.ctl") { loop.run() }
    }

    deinit {
        stop()
    }

    /// Checks, before anything streams, that `path` can take a new control socket: a name short
    /// enough for a socket, in a folder that exists, and not a file that is not a socket.
    public static func checkPath(_ path: String) throws(ControlSocketError) {
        _ = try UnixSocketAddress(path: path)
        var status = stat()
        if lstat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFSOCK else { throw .notASocketFile(path) }
            return
        }
        let folder = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        guard stat(folder, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else { throw .missingFolder(path) }
    }

    /// Stops serving: lets a command in progress finish, closes every connection and removes
    /// the socket file. Safe to call more than once.
    public func stop() {
        loop.wake()
        thread.join()
    }
}

/// The listening socket and its file, which it removes only while the file is still this
/// socket (a new stream may have taken the path over).
final class ListeningSocket {
    let fd: Int32
    let path: String
    private let device: UInt
    private let inode: UInt

    init(path: String) throws(ControlSocketError) {
        let address = try UnixSocketAddress(path: path)
        let fd = try makeUnixSocket(path: path)
        do throws(ControlSocketError) {
            // The file takes the socket's own mode at bind (less the umask): it is never open to others.
            guard fchmod(fd, 0o600) == 0 else { throw .system(operation: "fchmod", path: path, code: errno) }
            try Self.bind(fd, to: address, path: path)
            guard listen(fd, 8) == 0 else { throw .system(operation: "listen", path: path, code: errno) }
            guard fcntl(fd, F_SETFL, O_NONBLOCK) == 0 else { throw .system(operation: "fcntl", path: path, code: errno) }
            var status = stat()
            guard lstat(path, &status) == 0 else { throw .system(operation: "lstat", path: path, code: errno) }
            device = UInt(status.st_dev)
            inode = UInt(status.st_ino)
        } catch {
            Glibc.close(fd)
            throw error
        }
        self.fd = fd
        self.path = path
    }

    /// Binds, taking over the file of a socket nobody listens on any more.
    private static func bind(_ fd: Int32, to address: UnixSocketAddress, path: String) throws(ControlSocketError) {
        if address.withSocketAddress({ Glibc.bind(fd, $0, $1) }) == 0 { return }
        let code = errno
        switch code {
        case EADDRINUSE:
            var status = stat()
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK else { throw .notASocketFile(path) }
            guard !isListenedOn(address, path: path) else {
                throw .badPath(path: path, reason: "another stream is listening here; stop it or choose another path")
            }
            unlink(path)
            guard address.withSocketAddress({ Glibc.bind(fd, $0, $1) }) == 0 else {
                throw .system(operation: "bind", path: path, code: errno)
            }
        case ENOENT, ENOTDIR:
            throw .missingFolder(path)
        case EACCES, EROFS:
            throw .badPath(path: path, reason: "cannot create a socket there: \(String(cString: strerror(code)))")
        default:
            throw .system(operation: "bind", path: path, code: code)
        }
    }

    private static func isListenedOn(_ address: UnixSocketAddress, path: String) -> Bool {
        guard let probe = try? makeUnixSocket(path: path) else { return true }
        defer { Glibc.close(probe) }
        return address.withSocketAddress { connect(probe, $0, $1) } == 0 || errno != ECONNREFUSED
    }

    /// Closes the socket and removes its file if the file is still this socket.
    func close() {
        var status = stat()
        if lstat(path, &status) == 0, UInt(status.st_dev) == device, UInt(status.st_ino) == inode {
            unlink(path)
        }
        Glibc.close(fd)
    }
}

/// One client connection: its descriptor and the bytes of a line not yet complete.
final class ControlConnection {
    let fd: Int32
    var pending: [UInt8] = []
    var lastActivityNs: Int64

    init(fd: Int32, nowNs: Int64) {
        self.fd = fd
        lastActivityNs = nowNs
    }
}

/// The server's thread: polls the listener, a wake-up pipe and the connections; everything but
/// `wake()` runs on that thread.
final class ControlSocketLoop: @unchecked Sendable {
    private let listener: ListeningSocket
    private let limits: ControlSocketLimits
    private let handler: ControlSocketServer.Handler
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let woken = Atomic<Bool>(false)
    private var connections: [ControlConnection] = []
    /// Over every connection: a runaway script cannot keep the stream busy switching cameras.
    private var limiter: TokenBucket
    private var chunk = [UInt8](repeating: 0, count: 4096)

    init(listener: ListeningSocket, limits: ControlSocketLimits, handler: @escaping ControlSocketServer.Handler) throws(ControlSocketError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            listener.close()
            throw .system(operation: "pipe", path: listener.path, code: errno)
        }
        self.listener = listener
        self.limits = limits
        self.handler = handler
        wakeRead = ends[0]
        wakeWrite = ends[1]
        limiter = TokenBucket(ratePerSecond: limits.commandsPerSecond, burst: limits.burst)
    }

    /// Ends `run()` at its next poll; safe from any thread, any number of times.
    func wake() {
        guard !woken.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    func run() {
        defer { shutDown() }
        while true {
            var descriptors = [pollfd(fd: listener.fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            descriptors += connections.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&descriptors, nfds_t(descriptors.count), pollTimeoutMs())
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if descriptors[1].revents != 0 { return }
            let active = Set(descriptors.dropFirst(2).filter { $0.revents != 0 }.map(\.fd))
            connections.removeAll { connection in
                let keep = active.contains(connection.fd) ? serve(connection) : !isIdle(connection)
                if !keep { close(connection.fd) }
                return !keep
            }
            if descriptors[0].revents & Int16(POLLIN) != 0 { acceptAll() }
        }
    }

    private func pollTimeoutMs() -> Int32 {
        guard let oldest = connections.map(\.lastActivityNs).min() else { return -1 }
        let dueNs = oldest + Int64(limits.idleTimeoutMs) * 1_000_000
        return Int32(clamping: max(0, (dueNs - MonotonicClock.nowNs() + 999_999) / 1_000_000))
    }

    private func isIdle(_ connection: ControlConnection) -> Bool {
        MonotonicClock.nowNs() - connection.lastActivityNs >= Int64(limits.idleTimeoutMs) * 1_000_000
    }

    private func acceptAll() {
        while true {
            let fd = accept(listener.fd, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                return
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
            guard connections.count < limits.maximumConnections else {
                _ = send(.failed(.failed, "too many connections; this stream takes \(limits.maximumConnections) at once"), to: fd)
                close(fd)
                continue
            }
            connections.append(ControlConnection(fd: fd, nowNs: MonotonicClock.nowNs()))
        }
    }

    /// Reads what the client sent and answers every complete line; false when the connection
    /// is to be closed (end of file, an error, an over-long line, a client that does not read).
    private func serve(_ connection: ControlConnection) -> Bool {
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count < 0 {
                if errno == EINTR { continue }
                return errno == EAGAIN || errno == EWOULDBLOCK
            }
            guard count > 0 else { return false }
            connection.lastActivityNs = MonotonicClock.nowNs()
            connection.pending += chunk[..<count]
            while let newline = connection.pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = connection.pending[..<newline]
                guard line.count <= limits.maximumLineBytes else { return refuseLongLine(connection) }
                let reply = answer(line)
                connection.pending.removeSubrange(...newline)
                if let reply, !send(reply, to: connection.fd) { return false }
            }
            if connection.pending.count > limits.maximumLineBytes { return refuseLongLine(connection) }
        }
    }

    private func refuseLongLine(_ connection: ControlConnection) -> Bool {
        _ = send(.failed(.invalid, "a line is longer than \(limits.maximumLineBytes) bytes; send one JSON object per line"), to: connection.fd)
        return false
    }

    /// The reply to one line; nil for a blank line.
    private func answer(_ line: ArraySlice<UInt8>) -> StreamControlReply? {
        let isBlank = line.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }
        guard !isBlank else { return nil }
        guard limiter.admit(nowNs: MonotonicClock.nowNs()) else {
            return .failed(.failed, "too many commands; this stream takes \(limits.burst) at once, then \(formatRate(limits.commandsPerSecond)) a second")
        }
        guard let request = try? JSONLine.decode(StreamCommandRequest.self, from: line) else {
            return .failed(.invalid, #"not a JSON object with a "command", such as {"command":"stats"}"#)
        }
        do {
            return perform(try StreamCommand(request: request))
        } catch {
            return .failed(.invalid, "\(error)")
        }
    }

    /// Hands the command over and waits here for its reply.
    private func perform(_ command: StreamCommand) -> StreamControlReply {
        let result = ReplySlot()
        let done = DispatchSemaphore(value: 0)
        handler(command) { reply in
            result.reply.withLock { $0 = $0 ?? reply }
            done.signal()
        }
        done.wait()
        return result.reply.withLock { $0 } ?? .failed(.failed, "the command ended without an answer")
    }

    /// Writes a reply line without blocking; false when the client does not take it.
    private func send(_ reply: StreamControlReply, to fd: Int32) -> Bool {
        let bytes = JSONLine.encode(reply)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                let rest = UnsafeRawBufferPointer(rebasing: raw[offset...])
                return Glibc.send(fd, rest.baseAddress, rest.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    private func shutDown() {
        connections.forEach { close($0.fd) }
        connections = []
        listener.close()
        close(wakeRead)
        close(wakeWrite)
    }
}

private final class ReplySlot: Sendable {
    let reply = Mutex<StreamControlReply?>(nil)
}

private func formatRate(_ rate: Double) -> String {
    rate == rate.rounded() ? String(Int(rate)) : String(rate)
}
