import Foundation
import ICE
import MediaCore
import Synchronization
import TestSupport
import Testing

extension ICEAgentSuites {
    /// Figures, not checks: time to `ready` for an in-process pair, threads and CPU per agent, and
    /// the send path's cost and heap allocations. Runs only with CAMRTP_ICE_MEASURE=1 (see
    /// Tests/Tools/thread_malloc_count.c for the allocation count), and prints what it measured.
    @Suite("ICE: measurements", .enabled(if: ProcessInfo.processInfo.environment["CAMRTP_ICE_MEASURE"] == "1"))
    struct ICEMeasurements {
        @Test func timeToReady() async throws {
            var gatherMs: [Double] = []
            var readyMs: [Double] = []
            for _ in 0..<20 {
                let start = ContinuousClock.now
                let pair = try await ConnectedPair.make()
                gatherMs.append(pair.gatheredAfter.milliseconds)
                readyMs.append((ContinuousClock.now - start).milliseconds)
                pair.close()
            }
            print("ICE pair over 127.0.0.1, 20 runs: gathering median \(gatherMs.median) ms; ready median \(readyMs.median) ms, p90 \(readyMs.percentile(0.9)) ms, max \(readyMs.max() ?? 0) ms")
        }

        @Test func threadsAndIdleCPU() async throws {
            let threadsBefore = ProcessResources.taskNames().count
            let pair = try await ConnectedPair.make()
            let threadsAfter = ProcessResources.taskNames()
            print("threads: \(threadsAfter.count - threadsBefore) more for 2 agents; named \(threadsAfter.filter { $0.hasPrefix("camrtp.ice") })")
            let cpuBefore = AgentThreadCPU.ticks()
            let seconds = 20.0
            try await Task.sleep(for: .seconds(seconds))
            let ticks = AgentThreadCPU.ticks() - cpuBefore
            print("idle connected (consent checks only) for \(seconds) s: \(Double(ticks) * 10 / 2) ms CPU per agent thread")
            pair.close()
        }

        /// Agents created, gathered and closed over and over: resident memory and open descriptors
        /// should not grow (a leak of the agent, its sockets or its context would show here).
        @Test func lifecycleLeaves() async throws {
            func cycle() async throws {
                let agent = try ICEAgent(
                    configuration: ICEConfiguration(role: .controlling, localAddresses: ["127.0.0.1"]), receiveHandler: { _ in })
                _ = try await agent.gatherCandidates()
                agent.close()
            }
            for _ in 0..<100 { try await cycle() }
            let (rssBefore, fdsBefore) = (ProcessResources.residentBytes(), ProcessResources.openDescriptors())
            var report = "lifecycle: RSS \(rssBefore / 1024) KiB, \(fdsBefore) fds"
            for round in 1...5 {
                for _ in 0..<2_000 { try await cycle() }
                report += "; after \(round * 2_000) agents \(ProcessResources.residentBytes() / 1024) KiB, \(ProcessResources.openDescriptors()) fds"
            }
            print(report)
        }

        /// Sends from a thread of ours, as the send thread will: first to a live agent (what it
        /// receives, and its thread's CPU), then, with the receiver closed, to its dead port, beside a
        /// plain `sendto` to that same port, so the agent's own cost shows without a receiver
        /// competing for the two cores.
        @Test func sendPath() async throws {
            let pair = try await ConnectedPair.make()
            let count = 100_000
            let payload = [UInt8](repeating: 0xA5, count: 1_200)
            let port = try #require(pair.controlled.localCandidates.first?.port)

            let cpuBefore = AgentThreadCPU.ticks()
            let live = await Self.timeSends(count: count, payload: payload, agent: pair.controlling)
            let receiverTicks = AgentThreadCPU.ticks() - cpuBefore
            print("send to a live agent: \(live.sent)/\(count) datagrams of 1200 bytes, \(live.nsEach) ns each; \(pair.controlledReceived.count) delivered, agent threads used \(receiverTicks * 10) ms CPU meanwhile")

            pair.controlled.close()
            let dead = await Self.timeSends(count: count, payload: payload, agent: pair.controlling)
            let plain = await Self.timePlainSends(count: count, payload: payload, port: port)
            print("send to a closed port: ICEAgent.send \(dead.nsEach) ns each, plain sendto \(plain) ns each (debug build of our code)")
            if let allocations = live.allocations {
                print("send: \(allocations) heap allocations on the sending thread for \(count) sends")
            } else {
                print("send: allocations not counted (no LD_PRELOAD of thread_malloc_count.so)")
            }
            pair.controlling.close()
        }

        static func timeSends(count: Int, payload: [UInt8], agent: ICEAgent) async -> (sent: Int, nsEach: Double, allocations: UInt?) {
            let countAllocations = AllocationCount.verifiedFunction
            return await MediaThread.run(name: "test.send") {
                payload.withUnsafeBytes { bytes in
                    for _ in 0..<100 { agent.send(bytes) }  // warm-up
                    let allocationsBefore = countAllocations?()
                    let start = ContinuousClock.now
                    var sent = 0
                    for _ in 0..<count where agent.send(bytes) { sent += 1 }
                    let allocationsAfter = countAllocations?()
                    let elapsed = ContinuousClock.now - start
                    let allocations = allocationsAfter.flatMap { after in allocationsBefore.map { after - $0 } }
                    return (sent, elapsed.milliseconds * 1e6 / Double(count), allocations)
                }
            }
        }

        static func timePlainSends(count: Int, payload: [UInt8], port: UInt16) async -> Double {
            await MediaThread.run(name: "test.sendto") {
                let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
                defer { close(fd) }
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = port.bigEndian
                address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
                let start = ContinuousClock.now
                withUnsafePointer(to: &address) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { destination in
                        for _ in 0..<count {
                            _ = sendto(fd, payload, payload.count, 0, destination, socklen_t(MemoryLayout<sockaddr_in>.size))
                        }
                    }
                }
                return (ContinuousClock.now - start).milliseconds * 1e6 / Double(count)
            }
        }
    }
}

/// Two connected agents on 127.0.0.1, for the measurements.
struct ConnectedPair {
    let controlling: ICEAgent
    let controlled: ICEAgent
    let controlledReceived: ReceiveCounter
    let gatheredAfter: Duration

    static func make() async throws -> ConnectedPair {
        let start = ContinuousClock.now
        let counter = ReceiveCounter()
        let controlling = try ICEAgent(
            configuration: ICEConfiguration(role: .controlling, localAddresses: ["127.0.0.1"]), receiveHandler: { _ in })
        let controlled = try ICEAgent(
            configuration: ICEConfiguration(role: .controlled, localAddresses: ["127.0.0.1"]),
            receiveHandler: { _ in counter.increment() })
        async let controllingGathered = controlling.gatherCandidates()
        async let controlledGathered = controlled.gatherCandidates()
        let (first, second) = try await (controllingGathered, controlledGathered)
        let gathered = ContinuousClock.now - start
        try ICEAgent.exchange(controlling, first, controlled, second)
        async let controllingReady = controlling.waitForState(.ready)
        async let controlledReady = controlled.waitForState(.ready)
        _ = try await (controllingReady, controlledReady)
        return ConnectedPair(controlling: controlling, controlled: controlled, controlledReceived: counter, gatheredAfter: gathered)
    }

    func close() {
        controlling.close()
        controlled.close()
    }
}

final class ReceiveCounter: Sendable {
    private let value = Atomic<Int>(0)
    func increment() { value.add(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}

/// CPU clock ticks (1/100 s) used by this process's `camrtp.ice` threads, from /proc.
enum AgentThreadCPU {
    static func ticks() -> Int {
        guard let directory = opendir("/proc/self/task") else { return 0 }
        defer { closedir(directory) }
        var total = 0
        while let entry = readdir(directory) {
            let tid = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard tid.first?.isNumber == true,
                  ProcessResources.read("/proc/self/task/\(tid)/comm").hasPrefix("camrtp.ice")
            else { continue }
            // Fields after the parenthesised name: state is field 3, utime 14, stime 15.
            let stat = ProcessResources.read("/proc/self/task/\(tid)/stat")
            guard let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) { total += user + system }
        }
        return total
    }
}

extension Duration {
    var milliseconds: Double { Double(components.seconds) * 1_000 + Double(components.attoseconds) / 1e15 }
}
