import Foundation
import Transport

/// The `camrtp` executable that `swift build` put next to the test bundle, run as a user would.
public enum CamrtpBinary {
    public static var path: String {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return folder.appendingPathComponent("camrtp").path
    }

    public static var tool: ExternalTool { ExternalTool(path) }

    /// Runs `camrtp` with `arguments` to completion (at most `timeout` seconds).
    public static func run(_ arguments: [String], timeout: Double = TestPatience.seconds) throws -> ExternalTool.Result {
        try tool.run(arguments, timeout: timeout)
    }

    /// Starts `camrtp` through `/bin/sh -c script`, where the script names camrtp as "$0" and
    /// its arguments as "$@": for redirections, pipes and inherited signal dispositions, such as
    /// `exec "$0" "$@" > /dev/full` or `trap '' INT; exec "$0" "$@"`.
    public static func startInShell(_ script: String, _ arguments: [String]) throws -> ExternalTool.Running {
        try ExternalTool("/bin/sh").start(["-c", script, path] + arguments)
    }

    /// `startInShell` run to completion (at most `timeout` seconds).
    public static func runInShell(_ script: String, _ arguments: [String], timeout: Double = TestPatience.seconds) throws -> ExternalTool.Result {
        try startInShell(script, arguments).wait(timeout: timeout)
    }
}

/// Free UDP ports on 127.0.0.1 for a test's stream.
public enum UDPPorts {
    /// An even port whose successor is free too (RTP and RTCP, RFC 3550 §11).
    public static func freePair() -> UInt16 {
        while true {
            let port = UInt16.random(in: 20_000...59_998) & ~1
            if canBind(port) && canBind(port + 1) { return port }
        }
    }

    /// Waits until some program has bound UDP `port` (at most 20 s); false if none did.
    public static func waitUntilBound(_ port: UInt16, while condition: () -> Bool = { true }) -> Bool {
        LocalUDPPort.waitUntilBound(port, timeoutSeconds: TestPatience.seconds, while: condition)
    }

    private static func canBind(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
