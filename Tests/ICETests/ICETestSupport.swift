import Glibc
import ICE
import Synchronization
import Testing

/// Datagrams an agent received, in order, for a test to await one at a time.
final class DatagramInbox: Sendable {
    let stream: AsyncStream<[UInt8]>
    private let continuation: AsyncStream<[UInt8]>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
    }

    /// The agent's receive handler.
    var handler: ICEAgent.ReceiveHandler {
        { [continuation] bytes in continuation.yield(Array(bytes)) }
    }

    /// The next `count` datagrams.
    func next(_ count: Int) async -> [[UInt8]] {
        var received: [[UInt8]] = []
        for await datagram in stream {
            received.append(datagram)
            if received.count == count { break }
        }
        return received
    }
}

extension ICEAgent {
    /// Waits for `.stateChanged(state)`, failing on `.failed` unless that is what is awaited;
    /// returns every event seen on the way. Consumes `events`.
    @discardableResult
    func waitForState(_ state: ICEConnectionState) async throws -> [ICEEvent] {
        var seen: [ICEEvent] = []
        for await event in events {
            seen.append(event)
            if event == .stateChanged(state) { return seen }
            if event == .stateChanged(.failed) { throw ICETestError("ICE failed while waiting for \(state): \(seen)") }
        }
        throw ICETestError("events ended while waiting for \(state): \(seen)")
    }

    /// Gives each agent the other's credentials and candidates, as signalling would.
    static func exchange(_ first: ICEAgent, _ firstCandidates: [ICECandidate], _ second: ICEAgent, _ secondCandidates: [ICECandidate]) throws {
        try first.setRemoteCredentials(second.localCredentials)
        try first.addRemoteCandidates(secondCandidates)
        try first.endOfRemoteCandidates()
        try second.setRemoteCredentials(first.localCredentials)
        try second.addRemoteCandidates(firstCandidates)
        try second.endOfRemoteCandidates()
    }

    /// Gathers on both agents, exchanges what signalling would, and waits until both are ready.
    static func connect(_ controlling: ICEAgent, _ controlled: ICEAgent) async throws {
        async let controllingGathered = controlling.gatherCandidates()
        async let controlledGathered = controlled.gatherCandidates()
        let (controllingCandidates, controlledCandidates) = try await (controllingGathered, controlledGathered)
        try exchange(controlling, controllingCandidates, controlled, controlledCandidates)
        async let controllingReady = controlling.waitForState(.ready)
        async let controlledReady = controlled.waitForState(.ready)
        _ = try await (controllingReady, controlledReady)
    }

    func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { send($0) }
    }
}

struct ICETestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What the process holds, read from /proc: threads by name, and the UDP ports bound on loopback.
enum ProcessResources {
    /// Threads of this process whose name starts with `prefix`.
    static func threadCount(named prefix: String) -> Int {
        taskNames().filter { $0.hasPrefix(prefix) }.count
    }

    /// Returns once this many threads by that name are left. A joined thread can still be
    /// listed in /proc for a moment (the kernel wakes the joiner before it reaps the thread), so
    /// this rechecks rather than reads once; a thread that never ends hits the test's time limit.
    static func waitForThreads(named prefix: String, toNumber count: Int) async {
        while threadCount(named: prefix) > count { await Task.yield() }
    }

    static func taskNames() -> [String] {
        guard let directory = opendir("/proc/self/task") else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.first?.isNumber == true else { continue }
            names.append(read("/proc/self/task/\(name)/comm").trimmingSuffix("\n"))
        }
        return names
    }

    /// UDP ports with a socket bound in this network namespace (IPv4 and IPv6).
    static func boundUDPPorts() -> Set<UInt16> {
        var ports = Set<UInt16>()
        for table in ["/proc/net/udp", "/proc/net/udp6"] {
            for line in read(table).split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 1, let colon = fields[1].lastIndex(of: ":"),
                      let port = UInt16(fields[1][fields[1].index(after: colon)...], radix: 16)
                else { continue }
                ports.insert(port)
            }
        }
        return ports
    }

    /// Resident set size, from /proc/self/statm (pages of 4 KiB).
    static func residentBytes() -> Int {
        let fields = read("/proc/self/statm").split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * 4_096 : 0
    }

    static func openDescriptors() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            if entry.pointee.d_name.0 != CChar(UInt8(ascii: ".")) { count += 1 }
        }
        return count
    }

    static func read(_ path: String) -> String {
        guard let file = fopen(path, "r") else { return "" }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}

/// Every suite that runs ICE agents, one at a time: they count the process's agent threads and
/// bound ports, which agents of a suite running alongside would change.
@Suite(.serialized) enum ICEAgentSuites {}

/// Hands an agent to an event handler: its own, or its peer's.
final class AgentHolder: Sendable {
    private let agent = Mutex<ICEAgent?>(nil)
    func set(_ value: ICEAgent) { agent.withLock { $0 = value } }
    func take() -> ICEAgent? { agent.withLock { $0.take() } }
    func peek() -> ICEAgent? { agent.withLock { $0 } }
}
