import Foundation
import MediaCore
import Synchronization
import TestSupport

/// A network namespace of the test's own with `lo` and a veth pair whose `v0` carries
/// 127.0.0.2/32 and a unique-local IPv6 address: ICE agents that skip 127.0.0.1 (aioice) or
/// loopback interfaces (libnice) find usable addresses there, and nothing they send can leave
/// the machine (both ends of the veth stay inside). Needs root.
final class NetworkNamespace: Sendable {
    static let ipv4Address = "127.0.0.2"
    static let ipv6Address = "fd00:ca:ffee::2"

    let name: String
    private static let counter = Atomic<Int>(0)

    init() throws {
        name = "camrtp-ice-\(getpid())-\(Self.counter.wrappingAdd(1, ordering: .relaxed).oldValue)"
        try Self.ip(["netns", "add", name])
        do {
            try Self.ip(["-n", name, "link", "set", "lo", "up"])
            try Self.ip(["-n", name, "link", "add", "v0", "type", "veth", "peer", "name", "v1"])
            try Self.ip(["-n", name, "addr", "add", "\(Self.ipv4Address)/32", "dev", "v0"])
            try Self.ip(["-n", name, "addr", "add", "\(Self.ipv6Address)/128", "dev", "v0", "nodad"])
            try Self.ip(["-n", name, "link", "set", "v0", "up"])
            try Self.ip(["-n", name, "link", "set", "v1", "up"])
            try waitUntilCarrier()
        } catch {
            remove()
            throw error
        }
    }

    /// A veth is usable once both ends are up and the kernel reports its carrier (LOWER_UP);
    /// before that an ICE agent enumerating interfaces skips it. Waits for that event.
    private func waitUntilCarrier() throws {
        for _ in 0..<500 {
            if try Self.ip(["-n", name, "-o", "link", "show", "v0"]).contains("LOWER_UP") { return }
            usleep(10_000)
        }
        throw ICETestError("v0 in \(name) never reported its carrier")
    }

    func remove() {
        _ = try? Self.ip(["netns", "del", name])
    }

    /// Runs `body` on a new thread that has joined the namespace: sockets it opens, and threads
    /// it starts (an ICE agent's), live there.
    func run<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
        let path = "/run/netns/\(name)"
        let outcome: Swift.Result<Result, any Error> = await MediaThread.run(name: "test.netns") {
            let fd = open(path, O_RDONLY)
            guard fd >= 0 else { return .failure(ICETestError("open \(path): errno \(errno)")) }
            defer { close(fd) }
            guard let setns = Self.setns, setns(fd, Self.cloneNewNet) == 0 else {
                return .failure(ICETestError("setns into \(path) failed: errno \(errno)"))
            }
            return Swift.Result { try body() }
        }
        return try outcome.get()
    }

    /// The command to run a program inside the namespace.
    func command(_ arguments: [String]) -> [String] {
        ["/usr/sbin/ip", "netns", "exec", name] + arguments
    }

    @discardableResult
    private static func ip(_ arguments: [String]) throws -> String {
        let result = try ExternalTool("ip").run(arguments, timeout: 10)
        guard result.status == 0 else {
            throw ICETestError("ip \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
        }
        return result.stdout
    }

    /// Glibc declares setns(2) only under _GNU_SOURCE, which Swift's Glibc module lacks.
    private static let setns: (@convention(c) (Int32, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setns") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
    }()

    private static let cloneNewNet: Int32 = 0x4000_0000
}

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
