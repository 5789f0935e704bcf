import Foundation
import TestSupport

/// A program whose standard output and error are read line by line as they come, so that a test
/// can wait for the line that says something happened; its input stays open until
/// `closeInput()`, which `openssl s_server` and `s_client` take as "quit".
final class LineReadingProcess {
    struct NotStarted: Error, CustomStringConvertible {
        let description: String
    }

    private let pid: pid_t
    private var inputFD: Int32
    private let transcript = Transcript()

    init(_ name: String, _ arguments: [String]) throws {
        guard let path = ExternalTool.locate(name) else { throw NotStarted(description: "\(name) is not installed") }
        var input: [Int32] = [0, 0]
        var output: [Int32] = [0, 0]
        guard pipe(&input) == 0, pipe(&output) == 0 else { throw NotStarted(description: "pipe failed: \(errno)") }
        // Close-on-exec, so that no program a concurrent test starts holds our ends open; dup2
        // clears the flag on the child's 0, 1 and 2.
        for fd in input + output { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, output[1], 2)
        for fd in input + output { posix_spawn_file_actions_addclose(&actions, fd) }
        // The test runner blocks some signals; the child must see SIGTERM.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        close(input[0])
        close(output[1])
        guard result == 0 else {
            close(input[1])
            close(output[0])
            throw NotStarted(description: "cannot start \(path): \(String(cString: strerror(result)))")
        }
        self.pid = pid
        inputFD = input[1]
        let outputFD = output[0]
        Thread.detachNewThread { [transcript] in transcript.readLines(from: outputFD) }
    }

    deinit {
        stop()
    }

    /// The first line containing `text`, waiting for it as long as the program runs; nil if the
    /// program ends without printing it or `timeoutSeconds` (a guard against hangs) pass.
    func waitForLine(containing text: String, timeoutSeconds: Double = 60) -> String? {
        transcript.waitForLine(containing: text, timeoutSeconds: timeoutSeconds)
    }

    /// Everything printed so far, for failure messages.
    var output: String { transcript.text }

    func closeInput() {
        if inputFD >= 0 {
            close(inputFD)
            inputFD = -1
        }
    }

    /// Ends the program (SIGTERM) and reaps it.
    func stop() {
        closeInput()
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == 0 {
            kill(pid, SIGTERM)
            waitpid(pid, &status, 0)
        }
    }
}

/// The lines a program printed, filled by a reader thread until its output ends.
private final class Transcript: @unchecked Sendable {
    private let condition = NSCondition()
    private var lines: [String] = []
    private var outputEnded = false

    func readLines(from fd: Int32) {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            pending += buffer[..<count]
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                condition.withLock {
                    lines.append(line)
                    condition.broadcast()
                }
            }
        }
        close(fd)
        condition.withLock {
            if !pending.isEmpty { lines.append(String(decoding: pending, as: UTF8.self)) }
            outputEnded = true
            condition.broadcast()
        }
    }

    func waitForLine(containing text: String, timeoutSeconds: Double) -> String? {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        return condition.withLock {
            while true {
                if let line = lines.first(where: { $0.contains(text) }) { return line }
                if outputEnded || !condition.wait(until: deadline) { return nil }
            }
        }
    }

    var text: String {
        condition.withLock { lines.joined(separator: "\n") }
    }
}
