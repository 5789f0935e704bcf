import Foundation
import MediaCore
import Synchronization

/// A network namespace of the test's own with `lo` and a veth pair whose `v0` carries
/// 127.0.0.2/32 and a unique-local IPv6 address: ICE agents that skip 127.0.0.1 (aioice) or
/// loopback interfaces (libnice, Janus) find usable addresses there, and nothing they send can
/// leave the machine (both ends of the veth stay inside). Needs root and `ip` (iproute2).
public final class NetworkNamespace: Sendable {
    public static let ipv4Address = "127.0.0.2"
    public static let ipv6Address = "fd00:ca:ffee::2"

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public let name: String
    private static let counter = Atomic<Int>(0)

    /// Why namespaces cannot be made here (not root, no `ip`), or nil when they can.
    public static var unavailableReason: String? {
        if geteuid() != 0 { return "network namespaces need root" }
        if ExternalTool.locate("ip") == nil { return "network namespaces need ip (apt-get install iproute2)" }
        return nil
    }

    /// Creates `camrtp-<purpose>-<pid>-<n>`.
    public init(purpose: String = "test") throws {
        name = "camrtp-\(purpose)-\(getpid())-\(Self.counter.wrappingAdd(1, ordering: .relaxed).oldValue)"
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
        throw Failure(description: "v0 in \(name) never reported its carrier")
    }

    public func remove() {
        _ = try? Self.ip(["netns", "del", name])
    }

    /// Runs `body` on a new thread that has joined the namespace: sockets it opens, and threads
    /// it starts (an ICE agent's), live there.
    public func run<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
        let path = "/run/netns/\(name)"
        let outcome: Swift.Result<Result, any Error> = await MediaThread.run(name: "test.netns") {
            let fd = open(path, O_RDONLY)
            guard fd >= 0 else { return .failure(Failure(description: "open \(path): errno \(errno)")) }
            defer { close(fd) }
            guard let setns = Self.setns, setns(fd, Self.cloneNewNet) == 0 else {
                return .failure(Failure(description: "setns into \(path) failed: errno \(errno)"))
            }
            return Swift.Result { try body() }
        }
        return try outcome.get()
    }

    /// The command to run a program inside the namespace.
    public func command(_ arguments: [String]) -> [String] {
        ["/usr/sbin/ip", "netns", "exec", name] + arguments
    }

    /// Starts a program inside the namespace.
    public func start(_ arguments: [String], environment: [String: String] = [:]) throws -> ExternalTool.Running {
        let command = command(arguments)
        return try ExternalTool(command[0]).start(Array(command.dropFirst()), environment: environment)
    }

    @discardableResult
    private static func ip(_ arguments: [String]) throws -> String {
        let result = try ExternalTool("ip").run(arguments, timeout: TestPatience.seconds)
        guard result.status == 0 else {
            throw Failure(description: "ip \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
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
