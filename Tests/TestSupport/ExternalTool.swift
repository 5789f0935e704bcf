import Foundation

/// Runs a real external program (ffmpeg, GStreamer, camrtp itself) with a bounded wait.
///
/// Programs are started with `posix_spawn`, with an empty signal mask and SIGINT and SIGTERM at
/// their default action: the test runner blocks some signals, and a child would otherwise
/// inherit that and never see the Ctrl-C a test sends it.
///
/// Not swift-subprocess, which camrtp's loopback receiver uses: its only entry point is a scoped
/// `async` run that reaps the child before it returns, while the tests here need the process ID
/// at once, a non-blocking `isRunning` and a blocking `wait(timeout:)` from synchronous code;
/// bridging would park threads of the test runner's two-thread concurrency pool on a task that
/// needs one of them.
public struct ExternalTool: Sendable {
    public struct Result: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String
        public let timedOut: Bool
    }

    public let executable: String

    public init(_ name: String) {
        executable = name
    }

    /// The full path of `name` on PATH, or nil when it is not installed.
    public static func locate(_ name: String) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return paths.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts the program, with `environment` added to the test's own (SDL_VIDEODRIVER=dummy
    /// for a headless player); the caller waits with `Running.wait(timeout:)`.
    public func start(_ arguments: [String], environment: [String: String] = [:]) throws -> Running {
        guard let path = Self.locate(executable) else { throw SpawnError(message: "\(executable) is not installed") }
        return try Running(path: path, arguments: arguments, environment: environment)
    }

    /// Runs to completion or until `timeout` seconds pass (then it is stopped).
    public func run(_ arguments: [String], timeout: Double = TestPatience.seconds) throws -> Result {
        try start(arguments).wait(timeout: timeout)
    }

    public struct SpawnError: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// One of a program's output streams.
    public enum Stream: Int, Sendable {
        case stdout = 0, stderr = 1
    }

    /// A started program whose output is collected as it comes, so a full pipe never stalls it
    /// and a test can wait for the line that says something happened.
    public final class Running: @unchecked Sendable {
        public let pid: pid_t
        /// Guards the fields below; broadcast when output arrives or a stream closes.
        private let lock = NSCondition()
        private var output: [Data] = [Data(), Data()]
        private var closed = [false, false]
        private var exitStatus: Int32?
        private let drained = DispatchGroup()

        init(path: String, arguments: [String], environment: [String: String]) throws {
            var pipes: [[Int32]] = [[0, 0], [0, 0]]
            for index in 0..<2 {
                guard pipe(&pipes[index]) == 0 else { throw SpawnError(message: "pipe failed: \(errno)") }
            }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, pipes[0][1], 1)
            posix_spawn_file_actions_adddup2(&actions, pipes[1][1], 2)
            for fd in pipes.flatMap({ $0 }) { posix_spawn_file_actions_addclose(&actions, fd) }

            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var emptyMask = sigset_t()
            sigemptyset(&emptyMask)
            var defaults = sigset_t()
            sigemptyset(&defaults)
            sigaddset(&defaults, SIGINT)
            sigaddset(&defaults, SIGTERM)
            sigaddset(&defaults, SIGPIPE)
            posix_spawnattr_setsigmask(&attributes, &emptyMask)
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

            let argv = ([path] + arguments).map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            let variables = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
            let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { envp.forEach { free($0) } }
            var pid = pid_t()
            let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
            close(pipes[0][1])
            close(pipes[1][1])
            guard result == 0 else {
                close(pipes[0][0])
                close(pipes[1][0])
                throw SpawnError(message: "cannot start \(path): \(String(cString: strerror(result)))")
            }
            self.pid = pid
            for index in 0..<2 { drain(pipes[index][0], into: index) }
        }

        private func drain(_ fd: Int32, into index: Int) {
            drained.enter()
            DispatchQueue.global().async {
                var chunk = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = read(fd, &chunk, chunk.count)
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else { break }
                    self.lock.withLock {
                        self.output[index].append(contentsOf: chunk[..<count])
                        self.lock.broadcast()
                    }
                }
                close(fd)
                self.lock.withLock {
                    self.closed[index] = true
                    self.lock.broadcast()
                }
                self.drained.leave()
            }
        }

        /// What the program has written to `stream` so far.
        public func output(_ stream: Stream) -> String {
            lock.withLock { String(decoding: output[stream.rawValue], as: UTF8.self) }
        }

        /// Waits for a whole line of `stream` (from the start of the output) for which `predicate`
        /// holds, and returns it; nil once the program closed the stream without one, or after
        /// `timeout` seconds, a bound for a hang only.
        public func waitForLine(in stream: Stream, timeout: Double = TestPatience.seconds, where predicate: (Substring) -> Bool) -> String? {
            let deadline = Date().addingTimeInterval(timeout)
            var scanned = 0
            lock.lock()
            defer { lock.unlock() }
            while true {
                let data = output[stream.rawValue]
                while let newline = data[(data.startIndex + scanned)...].firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: data[(data.startIndex + scanned)..<newline], as: UTF8.self)
                    scanned = newline - data.startIndex + 1
                    if predicate(line[...]) { return line }
                }
                guard !closed[stream.rawValue], lock.wait(until: deadline) else { return nil }
            }
        }

        /// `waitForLine` for a line that contains `text`.
        public func waitForLine(containing text: String, in stream: Stream, timeout: Double = TestPatience.seconds) -> String? {
            waitForLine(in: stream, timeout: timeout) { $0.contains(text) }
        }

        /// True until the program has exited (and been reaped).
        public var isRunning: Bool {
            lock.withLock {
                if exitStatus != nil { return false }
                var status: Int32 = 0
                guard waitpid(pid, &status, WNOHANG) == pid else { return true }
                exitStatus = Self.decode(status)
                return false
            }
        }

        /// Sends SIGINT, as a person stopping a receiver with Ctrl-C would.
        public func interrupt() {
            if isRunning { kill(pid, SIGINT) }
        }

        /// Waits for exit; after `timeout` seconds sends SIGTERM, then SIGKILL.
        public func wait(timeout: Double) -> Result {
            let deadline = Date().addingTimeInterval(timeout)
            while isRunning && Date() < deadline { usleep(20_000) }
            let timedOut = isRunning
            if timedOut {
                kill(pid, SIGTERM)
                let killDeadline = Date().addingTimeInterval(3)
                while isRunning && Date() < killDeadline { usleep(20_000) }
                if isRunning { kill(pid, SIGKILL) }
                while isRunning { usleep(10_000) }
            }
            _ = drained.wait(timeout: .now() + 5)
            return lock.withLock {
                Result(
                    status: exitStatus ?? -1, stdout: String(decoding: output[0], as: UTF8.self),
                    stderr: String(decoding: output[1], as: UTF8.self), timedOut: timedOut)
            }
        }

        /// The exit code, or 128 + the signal for a program a signal ended, as a shell reports it.
        private static func decode(_ status: Int32) -> Int32 {
            let signal = status & 0x7F
            return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
        }
    }
}
