import FoundationEssentials
import Glibc
import TestSupport
import Testing

extension EndToEnd {
    /// The relay that the feedback tests and benchmarks put between a sender and a receiver,
    /// driven with plain UDP sockets. Every wait is for a packet or a file, and no assertion
    /// depends on how fast the machine is.
    @Suite struct ImpairmentRelayTests {
        @Test func relaysBothWaysFromTheAddressesEachSideTalksTo() throws {
            let rtpReceiver = try LoopbackSocket(ipv6: false), rtcpReceiver = try LoopbackSocket(ipv6: false)
            let sender = try LoopbackSocket(ipv6: false), movedSender = try LoopbackSocket(ipv6: false)
            let bystander = try LoopbackSocket(ipv6: false)
            let relay = try ImpairmentRelay(lanes: [
                .init(targetPort: rtpReceiver.endpoint.port), .init(targetPort: rtcpReceiver.endpoint.port),
            ])
            let (rtp, rtcp) = (relay.lanes[0], relay.lanes[1])

            try sender.send(Array("media".utf8), toPort: rtp.listenPort)
            let media = try #require(rtpReceiver.receiveWithSource())
            #expect(media.bytes == Array("media".utf8))
            #expect(media.sourcePort == rtp.innerPort, "the receiver hears the relay's inner port")
            try sender.send(Array("report".utf8), toPort: rtcp.listenPort)
            let report = try #require(rtcpReceiver.receiveWithSource())
            #expect(report.sourcePort == rtcp.innerPort, "each lane keeps to its own ports")

            try rtpReceiver.send(Array("feedback".utf8), toPort: media.sourcePort)
            let feedback = try #require(sender.receiveWithSource())
            #expect(feedback.bytes == Array("feedback".utf8))
            #expect(feedback.sourcePort == rtp.listenPort, "symmetric: feedback comes from where the sender sends")

            // Feedback goes to the last source seen on the lane, and may come from anyone.
            try movedSender.send(Array("moved".utf8), toPort: rtp.listenPort)
            _ = try #require(rtpReceiver.receiveWithSource())
            try bystander.send(Array("from anyone".utf8), toPort: rtp.innerPort)
            let moved = try #require(movedSender.receiveWithSource())
            #expect(moved.bytes == Array("from anyone".utf8))
            #expect(moved.sourcePort == rtp.listenPort)

            let stats = try relay.stop()
            #expect(stats.forward.packets.in == 3 && stats.forward.packets.out == 3)
            #expect(stats.reverse.packets.in == 2 && stats.reverse.packets.out == 2)
            #expect(stats.lanes == relay.lanes)
            expectBalanced(stats)
        }

        /// With --map-sources the lane works as a NAT in front of a server with several clients (a
        /// browser's TURN allocations): each source leaves from an inner port of its own, the first
        /// from the lane's, and what the server sends to a port reaches that source alone, however
        /// the sources take turns.
        @Test func mappedSourcesEachHearTheirOwnReplies() throws {
            let server = try LoopbackSocket(ipv6: false)
            let first = try LoopbackSocket(ipv6: false), second = try LoopbackSocket(ipv6: false)
            let relay = try ImpairmentRelay(lanes: [.init(targetPort: server.endpoint.port)], options: ["--map-sources"])
            let lane = relay.lanes[0]

            try first.send(Array("first".utf8), toPort: lane.listenPort)
            let fromFirst = try #require(server.receiveWithSource())
            try second.send(Array("second".utf8), toPort: lane.listenPort)
            let fromSecond = try #require(server.receiveWithSource())
            #expect(fromFirst.sourcePort == lane.innerPort)
            #expect(fromSecond.sourcePort != fromFirst.sourcePort, "each source keeps a port of its own")

            // The second source spoke last; a reply to the first still reaches the first.
            try server.send(Array("to first".utf8), toPort: fromFirst.sourcePort)
            let atFirst = try #require(first.receiveWithSource())
            #expect(atFirst.bytes == Array("to first".utf8))
            #expect(atFirst.sourcePort == lane.listenPort)
            try server.send(Array("to second".utf8), toPort: fromSecond.sourcePort)
            #expect(try #require(second.receiveWithSource()).bytes == Array("to second".utf8))
            try first.send(Array("first again".utf8), toPort: lane.listenPort)
            #expect(try #require(server.receiveWithSource()).sourcePort == fromFirst.sourcePort)

            let stats = try relay.stop()
            #expect(stats.forward.packets.out == 3 && stats.reverse.packets.out == 2)
            expectBalanced(stats)
        }

        @Test func sourcesPastTheMappedLimitShareTheLanesInnerSocket() throws {
            let server = try LoopbackSocket(ipv6: false)
            let relay = try ImpairmentRelay(lanes: [.init(targetPort: server.endpoint.port)], options: ["--map-sources"])
            let lane = relay.lanes[0]
            let limit = 64  // MAX_MAPPED_SOURCES in impairment_relay.py
            // Every source stays open, so that none hands its port to the next.
            let sources = try (0...limit).map { _ in try LoopbackSocket(ipv6: false) }
            var ports = Set<UInt16>()
            for (index, source) in sources.enumerated() {
                try source.send(Array("source \(index)".utf8), toPort: lane.listenPort)
                let arrived = try #require(server.receiveWithSource())
                #expect(arrived.bytes == Array("source \(index)".utf8))
                if index < limit { ports.insert(arrived.sourcePort) } else {
                    #expect(arrived.sourcePort == lane.innerPort, "a source past the limit leaves from the lane's socket")
                }
            }
            #expect(ports.count == limit, "each source up to the limit has a port of its own")
            expectBalanced(try relay.stop())
        }

        @Test func seededLossDropsExactlyThePredictedPackets() throws {
            let seed: UInt64 = 2024, count = 200
            let options = ["--seed", "\(seed)", "--forward-loss", "0.2", "--reverse-loss", "30%", "--forward-delay", "5"]
            let predicted = try ImpairmentRelay.predictedDrops(options: options, count: count)
            // The documented model: SplitMix64 seeded with the seed (forward) or seed + 1 (reverse);
            // a packet is lost when the draw's top 53 bits, as a fraction, fall below the probability.
            #expect(predicted.forward == Self.documentedDrops(state: seed, probability: 0.2, count: count))
            #expect(predicted.reverse == Self.documentedDrops(state: seed + 1, probability: 0.3, count: count))
            #expect(!predicted.forward.isEmpty && !predicted.reverse.isEmpty)

            let sender = try LoopbackSocket(ipv6: false), receiver = try LoopbackSocket(ipv6: false)
            let relay = try ImpairmentRelay(lanes: [.init(targetPort: receiver.endpoint.port)], options: options)
            let lane = relay.lanes[0]
            for index in 0..<count { try sender.send(Self.numbered(index, size: 100), toPort: lane.listenPort) }
            let forwardSurvivors = (0..<count).filter { !predicted.forward.contains($0) }
            #expect(try Self.receiveNumbers(forwardSurvivors.count, on: receiver) == forwardSurvivors)

            for index in 0..<count { try receiver.send(Self.numbered(index, size: 40), toPort: lane.innerPort) }
            let reverseSurvivors = (0..<count).filter { !predicted.reverse.contains($0) }
            #expect(try Self.receiveNumbers(reverseSurvivors.count, on: sender) == reverseSurvivors)

            let stats = try relay.stop()
            #expect(stats.forward.packets.in == count)
            #expect(stats.forward.packets.droppedLoss == predicted.forward.count)
            #expect(stats.forward.packets.out == forwardSurvivors.count)
            #expect(stats.reverse.packets.droppedLoss == predicted.reverse.count)
            #expect(stats.reverse.packets.out == reverseSurvivors.count)
            expectBalanced(stats)
        }

        @Test func aBottleneckDropsTheTailOfABurstLargerThanItsQueue() throws {
            // 40 kbit/s sends a 500-byte packet in 100 ms and the queue holds 2,500 bytes (5 packets),
            // so the queue stays full unless sending the burst takes the sender more than 9 s.
            let count = 100, queuedPackets = 5
            let sender = try LoopbackSocket(ipv6: false), receiver = try LoopbackSocket(ipv6: false)
            let relay = try ImpairmentRelay(
                lanes: [.init(targetPort: receiver.endpoint.port)], options: ["--forward-rate", "40", "--forward-queue-bytes", "2500"])
            for index in 0..<count { try sender.send(Self.numbered(index, size: 500), toPort: relay.lanes[0].listenPort) }
            #expect(try Self.receiveNumbers(queuedPackets, on: receiver) == Array(0..<queuedPackets), "the head of the burst gets through, in order")

            let stats = try relay.stop()
            let packets = stats.forward.packets
            #expect(packets.in == count)
            #expect(packets.droppedQueue > 0, "a burst of \(count) cannot fit a queue of \(queuedPackets)")
            #expect(packets.droppedLoss == 0)
            #expect(packets.out + packets.unsentAtExit >= queuedPackets)
            // The model's bound, not a timing: a packet waits at most for a full queue ahead of it.
            let maxQueueDelayMs = try #require(stats.forward.queueDelayMs?.max)
            #expect(maxQueueDelayMs <= 500.001, "2,500 bytes at 40 kbit/s drain in 500 ms")
            expectBalanced(stats)
        }

        @Test func statsBalanceAndThePacketLogHasALinePerPacket() throws {
            let folder = TemporaryDirectory()
            let logPath = folder.file("packets.csv")
            let sender = try LoopbackSocket(ipv6: false), receiver = try LoopbackSocket(ipv6: false)
            let relay = try ImpairmentRelay(lanes: [.init(targetPort: receiver.endpoint.port)], options: [
                "--seed", "5", "--forward-loss", "0.1", "--forward-burst", "0.05:3", "--forward-delay", "10",
                "--forward-jitter", "5", "--forward-rate", "400", "--forward-queue-ms", "50",
                "--reverse-loss", "0.1", "--reverse-delay", "10", "--packet-log", logPath,
            ])
            let lane = relay.lanes[0]
            for index in 0..<300 { try sender.send(Self.numbered(index, size: 300), toPort: lane.listenPort) }
            for index in 0..<50 { try receiver.send(Self.numbered(index, size: 60), toPort: lane.innerPort) }
            let stats = try relay.stop()  // whatever is still queued counts as unsent

            #expect(stats.forward.packets.in == 300 && stats.forward.bytes.in == 300 * 300)
            #expect(stats.reverse.packets.in == 50)
            expectBalanced(stats)
            let lines = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n").dropFirst()
            for (name, direction) in [("forward", stats.forward), ("reverse", stats.reverse)] {
                let rows = lines.map { $0.split(separator: ",", omittingEmptySubsequences: false) }.filter { $0[0] == name }
                #expect(rows.count == direction.packets.in, "one line per \(name) packet")
                #expect(rows.filter { $0[5] == "sent" }.count == direction.packets.out)
                #expect(rows.filter { $0[5] == "loss" }.count == direction.packets.droppedLoss)
                #expect(rows.filter { $0[5] == "queue" }.count == direction.packets.droppedQueue)
                #expect(direction.bins.map(\.dropped).reduce(0, +) == direction.packets.dropped)
                #expect(direction.bins.map { $0.throughputKbps * 125 }.reduce(0, +).rounded() == Double(direction.bytes.out))
            }
        }

        @Test func badArgumentsGetOneLineAndExitTwo() throws {
            let script = ImpairmentRelay.scriptPath
            for (arguments, message) in [
                (["--lane", "5004"], "impairment_relay: --lane '5004': expected LISTEN_PORT:HOST:PORT[@INNER_PORT]"),
                (["--lane", "0:127.0.0.1:5004", "--forward-loss", "1.5"], "impairment_relay: --forward-loss '1.5': expected a probability"),
                (["--lane", "0:127.0.0.1:5004", "--forward-queue-ms", "400"], "impairment_relay: --forward-queue-ms/--forward-queue-bytes: a queue needs a bottleneck"),
                (["--lane", "0:127.0.0.1:5004", "--reverse-schedule", "0:800,0:400"], "impairment_relay: --reverse-schedule '0:800,0:400': times must increase"),
                (["--frobnicate"], "impairment_relay: unrecognized arguments: --frobnicate"),
            ] {
                let result = try ImpairmentRelay.python.run([script] + arguments, timeout: TestPatience.seconds)
                #expect(result.status == 2, "\(arguments): exit \(result.status)")
                #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
            }
            let help = try ImpairmentRelay.python.run([script, "--help"], timeout: TestPatience.seconds)
            #expect(help.status == 0)
            #expect(help.stdout.contains("--forward-queue-ms") && help.stdout.contains("SplitMix64"))
        }

        // MARK: helpers

        private func expectBalanced(_ stats: ImpairmentRelayStats, sourceLocation: SourceLocation = #_sourceLocation) {
            for direction in [stats.forward, stats.reverse] {
                for counts in [direction.packets, direction.bytes] {
                    #expect(counts.in == counts.out + counts.dropped, "in = out + dropped: \(counts)", sourceLocation: sourceLocation)
                }
            }
        }

        /// The loss decisions as the script documents them, from the tests' own SplitMix64.
        static func documentedDrops(state: UInt64, probability: Double, count: Int) -> [Int] {
            var generator = SplitMix64(state: state)
            return (0..<count).filter { _ in Double(generator.next() >> 11) * 0x1p-53 < probability }
        }

        /// A datagram of `size` bytes that starts with `index` (big-endian).
        static func numbered(_ index: Int, size: Int) -> [UInt8] {
            [UInt8(index >> 8), UInt8(index & 0xFF)] + [UInt8](repeating: 0xA5, count: size - 2)
        }

        /// The numbers of the next `count` datagrams on `socket`, in arrival order.
        static func receiveNumbers(_ count: Int, on socket: LoopbackSocket) throws -> [Int] {
            try (0..<count).map { _ in
                let bytes = try #require(socket.receive(timeoutMilliseconds: 10_000), "a relayed packet")
                return Int(bytes[0]) << 8 | Int(bytes[1])
            }
        }
    }
}

extension LoopbackSocket {
    /// The next datagram and the port it came from, or nil if none arrives within the timeout.
    fileprivate func receiveWithSource(timeoutMilliseconds: Int32 = TestPatience.milliseconds) -> (bytes: [UInt8], sourcePort: UInt16)? {
        guard waitUntilReadable(timeoutMilliseconds: timeoutMilliseconds) else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var source = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = withUnsafeMutablePointer(to: &source) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, &buffer, buffer.count, 0, $0, &length) }
        }
        guard count >= 0 else { return nil }
        return (Array(buffer[..<count]), UInt16(bigEndian: source.sin_port))
    }
}
