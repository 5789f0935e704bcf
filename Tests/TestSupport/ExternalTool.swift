import Foundation

/// Runs a real external program (ffmpeg, GStreamer) with a bounded wait, as the tests' receivers.
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
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return paths.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts the program; the caller waits with `Running.wait(timeout:)`.
    public func start(_ arguments: [String], environment: [String: String]? = nil) throws -> Running {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.locate(executable) ?? executable)
        process.arguments = arguments
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let running = Running(process: process, stdout: out, stderr: err)
        try process.run()
        running.startDraining()
        return running
    }

    /// Runs to completion or until `timeout` seconds pass (then it is killed).
    public func run(_ arguments: [String], timeout: Double = 60, environment: [String: String]? = nil) throws -> Result {
        try start(arguments, environment: environment).wait(timeout: timeout)
    }

    /// A started program whose output is collected as it comes, so a full pipe never stalls it.
    public final class Running: @unchecked Sendable {
        public let process: Process
        private let stdout: Pipe
        private let stderr: Pipe
        private let lock = NSLock()
        private var outData = Data()
        private var errData = Data()
        private let drained = DispatchGroup()

        init(process: Process, stdout: Pipe, stderr: Pipe) {
            self.process = process
            self.stdout = stdout
            self.stderr = stderr
        }

        func startDraining() {
            for (pipe, isOut) in [(stdout, true), (stderr, false)] {
                drained.enter()
                DispatchQueue.global().async {
                    let data = pipe.fileHandleForReading.readDataToEndOfFile()
                    self.lock.lock()
                    if isOut { self.outData = data } else { self.errData = data }
                    self.lock.unlock()
                    self.drained.leave()
                }
            }
        }

        /// Sends SIGINT, as a person stopping a receiver with Ctrl-C would.
        public func interrupt() {
            if process.isRunning { process.interrupt() }
        }

        /// Waits for exit, killing the program after `timeout` seconds.
        public func wait(timeout: Double) -> Result {
            let deadline = Date().addingTimeInterval(timeout)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            let timedOut = process.isRunning
            if timedOut {
                process.terminate()
                usleep(200_000)
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            }
            process.waitUntilExit()
            _ = drained.wait(timeout: .now() + 5)
            lock.lock()
            defer { lock.unlock() }
            return Result(
                status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                stderr: String(decoding: errData, as: UTF8.self), timedOut: timedOut)
        }
    }
}
