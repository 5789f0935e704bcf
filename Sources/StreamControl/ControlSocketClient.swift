import Glibc
import MediaCore

/// Sends one command to a stream's control socket and reads its answer: what `camrtp ctl` does.
public enum ControlSocketClient {
    /// Connects to `path`, sends `command`, and returns the answer line's JSON and its decoded
    /// form. Waits at most `timeoutMs` for the answer (a snapshot waits for the next frame, a
    /// switch for the new camera's first one).
    public static func send(
        _ command: StreamCommand, to path: String, timeoutMs: Int32 = 10_000
    ) throws(ControlSocketError) -> (line: String, reply: StreamControlReply) {
        let fd = try connect(to: path)
        defer { close(fd) }
        let request = JSONLine.encode(command.request)
        let sent = request.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == request.count else { throw .notReachable(path: path, reason: "the stream closed the connection") }
        let line = try readLine(from: fd, path: path, timeoutMs: timeoutMs)
        guard let reply = try? JSONLine.decode(StreamControlReply.self, from: line[...]) else {
            throw .notReachable(path: path, reason: "the answer is not a control reply: \(String(decoding: line, as: UTF8.self))")
        }
        return (String(decoding: line, as: UTF8.self), reply)
    }

    private static func connect(to path: String) throws(ControlSocketError) -> Int32 {
        let address = try UnixSocketAddress(path: path)
        var status = stat()
        if lstat(path, &status) == 0, status.st_mode & S_IFMT != S_IFSOCK {
            throw .badPath(path: path, reason: "is not a socket; give the path that `camrtp send --control-socket` was given")
        }
        let fd = try makeUnixSocket(path: path)
        let result = address.withSocketAddress { Glibc.connect(fd, $0, $1) }
        guard result == 0 else {
            let code = errno
            close(fd)
            switch code {
            case ENOENT:
                throw .notReachable(path: path, reason: "no stream listens here; is `camrtp send --control-socket \(path)` running?")
            case ECONNREFUSED:
                throw .notReachable(path: path, reason: "the stream that listened here has ended")
            case EACCES:
                throw .badPath(path: path, reason: "belongs to another user (the socket is mode 0600)")
            default:
                throw .system(operation: "connect", path: path, code: code)
            }
        }
        return fd
    }

    /// Reads up to the first newline, within `timeoutMs` in all.
    private static func readLine(from fd: Int32, path: String, timeoutMs: Int32) throws(ControlSocketError) -> [UInt8] {
        var line: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let deadlineNs = MonotonicClock.nowNs() + Int64(timeoutMs) * 1_000_000
        while true {
            let remainingMs = Int32(clamping: (deadlineNs - MonotonicClock.nowNs() + 999_999) / 1_000_000)
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = remainingMs > 0 ? poll(&descriptor, 1, remainingMs) : 0
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { throw .notReachable(path: path, reason: "no answer within \(timeoutMs) ms") }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw .notReachable(path: path, reason: "the stream closed the connection without an answer") }
            if let newline = chunk[..<count].firstIndex(of: UInt8(ascii: "\n")) {
                return line + chunk[..<newline]
            }
            line += chunk[..<count]
            guard line.count <= 1 << 20 else { throw .notReachable(path: path, reason: "the answer is longer than 1 MiB") }
        }
    }
}
