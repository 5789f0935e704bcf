import Foundation
import Synchronization

/// Two hosts that can reach each other only through a TURN relay: network namespaces `left`
/// (10.1.0.2) and `right` (10.2.0.2) joined through `middle` (10.1.0.1 and 10.2.0.1), which
/// routes between them but drops every UDP datagram it would forward (nftables, forward hook).
/// HTTP (TCP) between the hosts goes through, so signalling works; media between them cannot,
/// except through a TURN server in `middle` (coturn's `turnserver`), which both reach and which
/// relays from 10.2.0.1. Nothing leaves the machine: every veth's two ends stay inside.
public final class RelayedNetwork: Sendable {
    public static let leftAddress = "10.1.0.2"
    public static let rightAddress = "10.2.0.2"
    /// The middle's address on each side: where the TURN server listens for that side.
    public static let middleLeftAddress = "10.1.0.1"
    public static let middleRightAddress = "10.2.0.1"
    public static let turnPort = 3478

    public let left: String
    public let middle: String
    public let right: String
    private static let counter = Atomic<Int>(0)

    /// Why it cannot be built here, or nil.
    public static var unavailableReason: String? {
        if let reason = NetworkNamespace.unavailableReason { return reason }
        if !FileManager.default.isExecutableFile(atPath: "/usr/sbin/nft") { return "needs nft (apt-get install nftables)" }
        if ExternalTool.locate("turnserver") == nil { return "needs coturn's turnserver (apt-get install coturn)" }
        return nil
    }

    /// `dropsDirectUDP` false keeps the direct path open, for comparing with the relay.
    public init(dropsDirectUDP: Bool = true) throws {
        let tag = "\(getpid())-\(Self.counter.wrappingAdd(1, ordering: .relaxed).oldValue)"
        (left, middle, right) = ("camrtp-l-\(tag)", "camrtp-m-\(tag)", "camrtp-r-\(tag)")
        try Self.ip(["netns", "add", left])
        try Self.ip(["netns", "add", middle])
        try Self.ip(["netns", "add", right])
        do {
            for name in [left, middle, right] { try Self.ip(["-n", name, "link", "set", "lo", "up"]) }
            try Self.ip(["link", "add", "l0", "netns", left, "type", "veth", "peer", "name", "m0", "netns", middle])
            try Self.ip(["link", "add", "r0", "netns", right, "type", "veth", "peer", "name", "m1", "netns", middle])
            for (name, device, address) in [
                (left, "l0", Self.leftAddress), (middle, "m0", Self.middleLeftAddress), (middle, "m1", Self.middleRightAddress),
                (right, "r0", Self.rightAddress),
            ] {
                try Self.ip(["-n", name, "addr", "add", "\(address)/24", "dev", device])
                try Self.ip(["-n", name, "link", "set", device, "up"])
            }
            try Self.ip(["-n", left, "route", "add", "default", "via", Self.middleLeftAddress])
            try Self.ip(["-n", right, "route", "add", "default", "via", Self.middleRightAddress])
            try run(in: middle, ["/bin/sh", "-c", "echo 1 > /proc/sys/net/ipv4/ip_forward"])
            try run(in: middle, ["/usr/sbin/nft", "add table inet relayonly"])
            try run(in: middle, ["/usr/sbin/nft", "add chain inet relayonly forward { type filter hook forward priority 0; }"])
            try run(in: middle, ["/usr/sbin/nft", "add rule inet relayonly forward meta l4proto udp counter \(dropsDirectUDP ? "drop" : "accept")"])
            for (name, device) in [(left, "l0"), (middle, "m0"), (middle, "m1"), (right, "r0")] { try waitUntilCarrier(name, device) }
        } catch {
            remove()
            throw error
        }
    }

    public func remove() {
        for name in [left, middle, right] { _ = try? Self.ip(["netns", "del", name]) }
    }

    /// Starts a program in namespace `name`.
    public func start(in name: String, _ arguments: [String], environment: [String: String] = [:]) throws -> ExternalTool.Running {
        try ExternalTool("/usr/sbin/ip").start(["netns", "exec", name] + arguments, environment: environment)
    }

    /// UDP datagrams the middle refused to forward: the direct path that was tried and lost.
    public func droppedDatagrams() throws -> Int {
        let listing = try ExternalTool("/usr/sbin/ip").run(["netns", "exec", middle, "/usr/sbin/nft", "list chain inet relayonly forward"]).stdout
        guard let range = listing.range(of: "packets ") else { return 0 }
        return Int(listing[range.upperBound...].prefix { $0.isNumber }) ?? 0
    }

    /// A bottleneck toward the right host: the middle forwards it UDP at `kilobytesPerSecond`
    /// (with `burstKilobytes` of credit) and drops the rest, as a policer does; the left host's
    /// own traffic and everything toward the left are untouched. Needs `dropsDirectUDP` false.
    public func limitUDPToRight(kilobytesPerSecond: Int, burstKilobytes: Int) throws {
        try run(in: middle, [
            "/usr/sbin/nft", "insert rule inet relayonly forward ip daddr \(Self.rightAddress) meta l4proto udp "
                + "limit rate over \(kilobytesPerSecond) kbytes/second burst \(burstKilobytes) kbytes counter drop",
        ])
    }

    /// A bottleneck toward the right host with a queue: the middle sends everything toward it at
    /// `kilobitsPerSecond` through a token-bucket shaper (tc's `tbf`) that holds up to `queueMs`
    /// and drops what no longer fits, as a router's full buffer does. Delay grows before anything
    /// is lost, where a policer (`limitUDPToRight`) drops without delay. Signalling toward the
    /// right host shares it.
    public func shapeToRight(kilobitsPerSecond: Int, queueMs: Int) throws {
        try run(in: middle, [
            "/usr/sbin/tc", "qdisc", "add", "dev", "m1", "root", "tbf", "rate", "\(kilobitsPerSecond)kbit", "burst", "1600",
            "latency", "\(queueMs)ms",
        ])
    }

    /// coturn in the middle with one long-term user, relaying from 10.2.0.1; returns once it
    /// listens. `turn:10.1.0.1:3478` for the left host, `turn:10.2.0.1:3478` for the right.
    public func startTURNServer(user: String, password: String, directory: String) throws -> ExternalTool.Running {
        let server = try start(in: middle, [
            ExternalTool.locate("turnserver") ?? "turnserver", "-n", "--listening-ip=\(Self.middleLeftAddress)",
            "--listening-ip=\(Self.middleRightAddress)", "--relay-ip=\(Self.middleRightAddress)", "--listening-port=\(Self.turnPort)",
            "--lt-cred-mech", "--user=\(user):\(password)", "--realm=camrtp.test", "--fingerprint", "--no-tls", "--no-dtls", "--no-cli",
            "--min-port=50000", "--max-port=50999", "--userdb=\(directory)/turndb", "--pidfile=\(directory)/turnserver.pid",
            "--log-file=stdout", "--simple-log", "--verbose",
        ])
        guard server.waitForLine(in: .stdout, where: { $0.contains("listener opened on") && $0.contains(Self.middleRightAddress) }) != nil else {
            server.interrupt()
            let result = server.wait(timeout: 10)
            throw NetworkNamespace.Failure(description: "turnserver did not start: \(result.stdout) \(result.stderr)")
        }
        return server
    }

    private func run(in name: String, _ arguments: [String]) throws {
        let result = try ExternalTool("/usr/sbin/ip").run(["netns", "exec", name] + arguments)
        guard result.status == 0 else {
            throw NetworkNamespace.Failure(description: "\(arguments.joined(separator: " ")) in \(name) failed: \(result.stderr)")
        }
    }

    private func waitUntilCarrier(_ name: String, _ device: String) throws {
        for _ in 0..<500 {
            if try Self.ip(["-n", name, "-o", "link", "show", device]).contains("LOWER_UP") { return }
            usleep(10_000)
        }
        throw NetworkNamespace.Failure(description: "\(device) in \(name) never reported its carrier")
    }

    @discardableResult
    private static func ip(_ arguments: [String]) throws -> String {
        let result = try ExternalTool("ip").run(arguments)
        guard result.status == 0 else {
            throw NetworkNamespace.Failure(description: "ip \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
        }
        return result.stdout
    }
}
