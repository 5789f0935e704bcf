import Glibc
import StreamControl
import Synchronization
import TestSupport
import Testing

/// A client that speaks raw bytes to a control socket, to test what `ControlSocketClient` never sends.
final class RawControlClient {
    let fd: Int32
    private var pending: [UInt8] = []

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let result = withUnsafePointer(to: address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw SocketFailure(code: errno)
        }
    }

    deinit { close(fd) }

    struct SocketFailure: Error { let code: Int32 }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The next line, or nil at end of file or after 10 s without one.
    func readLine() -> String? {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 10_000) == 1 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            pending += chunk[..<count]
        }
    }
}

/// Records the commands a server hands over and answers each with what `answer` says.
final class CommandRecorder: Sendable {
    private let received = Mutex<[StreamCommand]>([])
    var commands: [StreamCommand] { received.withLock { $0 } }

    /// Answers at once, on the server's own thread.
    func handle(_ command: StreamCommand, reply: @Sendable (StreamControlReply) -> Void) {
        received.withLock { $0.append(command) }
        if case .bitrate(let kbps) = command { return reply(StreamControlReply(targetBitrateKbps: kbps)) }
        reply(StreamControlReply())
    }
}

@Suite struct ControlSocketServerTests {
    static func serve(
        _ path: String, limits: ControlSocketLimits = ControlSocketLimits()
    ) throws -> (ControlSocketServer, CommandRecorder) {
        let recorder = CommandRecorder()
        let server = try ControlSocketServer(path: path, limits: limits) { recorder.handle($0, reply: $1) }
        return (server, recorder)
    }

    static func mode(_ path: String) -> mode_t? {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_mode : nil
    }

    @Test func theSocketIsOnlyItsUsersAndGoesAwayWithTheServer() throws {
        let folder = TemporaryDirectory()
        let path = folder.file("cam.sock")
        let (server, recorder) = try Self.serve(path)
        let mode = try #require(Self.mode(path))
        #expect(mode & S_IFMT == S_IFSOCK)
        #expect(mode & 0o777 == 0o600)
        let answer = try ControlSocketClient.send(.bitrate(kbps: 800), to: path)
        #expect(answer.line == #"{"ok":true,"targetBitrateKbps":800}"#)
        #expect(answer.reply == StreamControlReply(targetBitrateKbps: 800))
        #expect(recorder.commands == [.bitrate(kbps: 800)])
        server.stop()
        #expect(Self.mode(path) == nil)
        server.stop()
    }

    @Test func aFileThatIsNotASocketIsNeverReplaced() throws {
        let folder = TemporaryDirectory()
        let path = folder.file("notes.txt")
        try "keep me".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(throws: ControlSocketError.badPath(path: path, reason: "exists and is not a socket; refusing to replace it")) {
            try Self.serve(path)
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me")
        #expect(throws: ControlSocketError.badPath(
            path: path, reason: "is not a socket; give the path that `camrtp send --control-socket` was given")) {
            try ControlSocketClient.send(.stats, to: path)
        }
    }

    @Test func aSocketLeftByAnEndedStreamIsTakenOverButALiveOneIsNot() throws {
        let folder = TemporaryDirectory()
        let path = folder.file("cam.sock")
        // A socket file nobody listens on, as a killed stream leaves it.
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(stale, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        close(stale)
        #expect(throws: ControlSocketError.notReachable(path: path, reason: "the stream that listened here has ended")) {
            try ControlSocketClient.send(.stats, to: path)
        }

        let (server, _) = try Self.serve(path)
        #expect(try ControlSocketClient.send(.keyframe, to: path).reply.ok)
        #expect(throws: ControlSocketError.badPath(path: path, reason: "another stream is listening here; stop it or choose another path")) {
            try Self.serve(path)
        }
        #expect(try ControlSocketClient.send(.keyframe, to: path).reply.ok, "the refused second server left the first one alone")
        server.stop()
    }

    @Test func pathsThatCannotHoldASocketAreRefused() throws {
        let folder = TemporaryDirectory()
        let missing = folder.file("no/such/folder/cam.sock")
        #expect(throws: ControlSocketError.badPath(path: missing, reason: "its folder does not exist")) { try Self.serve(missing) }
        let long = folder.file(String(repeating: "x", count: 120))
        #expect { try Self.serve(long) } throws: { "\($0)".contains("a socket path has at most 107") }
        #expect(throws: ControlSocketError.notReachable(
            path: folder.file("absent.sock"), reason: "no stream listens here; is `camrtp send --control-socket \(folder.file("absent.sock"))` running?")) {
            try ControlSocketClient.send(.stats, to: folder.file("absent.sock"))
        }
    }

    @Test func eachLineGetsOneAnswerInOrderAndBadLinesSayWhy() throws {
        let folder = TemporaryDirectory()
        let path = folder.file("cam.sock")
        let (server, recorder) = try Self.serve(path)
        defer { server.stop() }
        let client = try RawControlClient(path: path)
        client.send("{\"command\":\"bitrate\",\"value\":700}\n\n{\"command\":\"keyframe\"}\r\nnot json\n")
        client.send(#"{"command":"bitrate","value":0}"# + "\n" + #"{"command":"warp"}"# + "\n")
        #expect(client.readLine() == #"{"ok":true,"targetBitrateKbps":700}"#)
        #expect(client.readLine() == #"{"ok":true}"#)
        #expect(client.readLine() == #"{"error":"not a JSON object with a \"command\", such as {\"command\":\"stats\"}","failure":"invalid","ok":false}"#)
        #expect(client.readLine() == #"{"error":"bitrate needs a whole number of kbit/s in 1...100000, not 0","failure":"invalid","ok":false}"#)
        #expect(client.readLine()?.contains("unknown command 'warp'") == true)
        #expect(recorder.commands == [.bitrate(kbps: 700), .keyframe], "refused lines change nothing")
    }

    @Test func anOverLongLineIsAnsweredAndItsConnectionClosed() throws {
        let folder = TemporaryDirectory()
        let path = folder.file("cam.sock")
        let (server, recorder) = try Self.serve(path, limits: ControlSocketLimits(maximumLineBytes: 64))
        defer { server.stop() }
        let client = try RawControlClient(path: path)
        client.send(String(repeating: " ", count: 100))
        #expect(client.readLine() == #"{"error":"a line is longer than 64 bytes; send one JSON object per line","failure":"invalid","ok":false}"#)
        #expect(client.readLine() == nil, "closed")
        #expect(recorder.commands.isEmpty)
        #expect(try ControlSocketClient.send(.stats, to: path).reply.ok, "the server goes on")
    }

    @Test func connectionsPastTheLimitAreTurnedAway() throws {
        let folder = TemporaryDirectory()
        let path = folder.file("cam.sock")
        let (server, _) = try Self.serve(path, limits: ControlSocketLimits(maximumConnections: 2))
        defer { server.stop() }
        let first = try RawControlClient(path: path), second = try RawControlClient(path: path)
        // Both are served (answered) before the third arrives.
        for client in [first, second] {
            client.send(#"{"command":"stats"}"# + "\n")
            #expect(client.readLine() == #"{"ok":true}"#)
        }
        let third = try RawControlClient(path: path)
        #expect(third.readLine() == #"{"error":"too many connections; this stream takes 2 at once","failure":"failed","ok":false}"#)
        #expect(third.readLine() == nil)
        first.send(#"{"command":"keyframe"}"# + "\n")
        #expect(first.readLine() == #"{"ok":true}"#)
    }

    @Test func commandsPastTheRateAreRefusedWithoutReachingTheStream() throws {
        let folder = TemporaryDirectory()
        let path = folder.file("cam.sock")
        let (server, recorder) = try Self.serve(path, limits: ControlSocketLimits(commandsPerSecond: 0.01, burst: 3))
        defer { server.stop() }
        let client = try RawControlClient(path: path)
        client.send(String(repeating: #"{"command":"keyframe"}"# + "\n", count: 5))
        let answers = (0..<5).map { _ in client.readLine() }
        #expect(answers.prefix(3).allSatisfy { $0 == #"{"ok":true}"# })
        #expect(answers.suffix(2).allSatisfy { $0?.contains("too many commands; this stream takes 3 at once") == true })
        #expect(recorder.commands.count == 3)
    }

    @Test func anIdleConnectionIsClosed() throws {
        let folder = TemporaryDirectory()
        let path = folder.file("cam.sock")
        let (server, _) = try Self.serve(path, limits: ControlSocketLimits(idleTimeoutMs: 50))
        defer { server.stop() }
        let client = try RawControlClient(path: path)
        #expect(client.readLine() == nil, "the server closes a connection that says nothing")
    }
}
