import Foundation
import MediaCore

/// A program the test talks to in JSON lines over its stdin and stdout.
final class LineProcess: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()
    /// Bytes read past the last line returned; used by one reader at a time.
    private var pending: [UInt8] = []

    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    /// The next line, or nil once the program closed its output.
    func readLine() async -> String? {
        await MediaThread.run(name: "test.readline") { [self] in
            while true {
                if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    return line
                }
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { return nil }
                pending += chunk
            }
        }
    }

    func write(line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Closes its stdin and waits for it to exit; returns the status and what it wrote to stderr.
    func finish() async -> (status: Int32, stderr: String) {
        try? input.fileHandleForWriting.close()
        return await MediaThread.run(name: "test.wait") { [self] in
            process.waitUntilExit()
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            return (process.terminationStatus, text)
        }
    }

    /// SIGKILL: a signal the child cannot have inherited blocked from the test runner.
    func kill() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    }
}
