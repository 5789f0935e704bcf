import Foundation
import MediaCore
import TestSupport
import Testing

extension EndToEnd {
    /// `publish` for as long as it runs: its endpoint (aiortc) stops and comes back, gracefully
    /// (DTLS close_notify) or by a crash, and camrtp publishes again by itself; an endpoint that
    /// is not there is tried with a growing backoff; bad --turn URLs are one line.
    @Suite(.serialized) struct WHIPReconnectionEndToEndTests {
        typealias Bed = WHIPPublishEndToEndTests.Bed

        /// The endpoint again on the same port, in the same namespace.
        static func restartEndpoint(in namespace: NetworkNamespace) throws -> ExternalTool.Running {
            let endpoint = try namespace.start([
                "/usr/bin/python3", "-u", TestTools.path("whip_endpoint.py"), "--port", String(WHIPPublishEndToEndTests.port),
            ])
            try #require(endpoint.waitForLine(containing: "\"listening\"", in: .stdout) != nil, "\(endpoint.output(.stderr))")
            return endpoint
        }

        static func decodes(_ endpoint: ExternalTool.Running, frames: Int = 30) -> Bool {
            endpoint.waitForLine(in: .stdout) { $0.contains("\"frame\"") && $0.contains("\"n\": \(frames),") } != nil
        }

        /// SIGINT closes the endpoint's sessions (close_notify) or SIGKILL drops them unseen; a
        /// new endpoint on the same port then decodes the stream, and --stats-json counts the
        /// reconnection.
        @Test(.timeLimit(.minutes(3)), arguments: [SIGINT, SIGKILL])
        func publishComesBackAfterItsEndpointRestarts(_ signal: Int32) async throws {
            let bed = try Bed()
            defer { bed.stop() }
            let statsFile = TemporaryDirectory()
            let publisher = try bed.namespace.start(
                WHIPPublishEndToEndTests.publishArguments(["--stats-json", statsFile.file("stats.json")]))
            defer { if publisher.isRunning { publisher.interrupt(); _ = publisher.wait(timeout: 10) } }
            #expect(Self.decodes(bed.endpoint), "\(bed.endpoint.output(.stdout)) \(publisher.output(.stderr))")
            kill(bed.endpoint.pid, signal)
            _ = bed.endpoint.wait(timeout: TestPatience.seconds)
            let second = try Self.restartEndpoint(in: bed.namespace)
            defer { second.interrupt(); _ = second.wait(timeout: 10) }
            #expect(Self.decodes(second), "\(second.output(.stdout)) \(publisher.output(.stderr))")

            publisher.interrupt()
            let result = publisher.wait(timeout: TestPatience.seconds)
            #expect(result.status == 0, "\(result.stderr)")
            let reconnecting = result.stderr.split(separator: "\n").filter { $0.contains("reconnecting in ") }
            #expect(!reconnecting.isEmpty, "\(result.stderr)")
            // A clean restart closes the session; after a crash the endpoint falls silent, the
            // ICE restart's PATCH finds no such session (404), and a new one is POSTed.
            let causes = signal == SIGINT ? ["the endpoint ended the session"] : ["no RTCP from the endpoint", "consent"]
            #expect(causes.contains { reconnecting.first?.contains($0) == true }, "\(result.stderr)")
            #expect(result.stderr.contains("published again"), "\(result.stderr)")
            let stats = try String(contentsOfFile: statsFile.file("stats.json"), encoding: .utf8)
            let reconnections = stats.split(separator: "\n").first { $0.contains("\"reconnections\"") }
            #expect(reconnections.map { !$0.contains(": 0,") } == true, "\(stats)")
            print("endpoint \(signal == SIGINT ? "restarted" : "crashed"): \(reconnecting.joined(separator: " | "))")
        }

        /// A TURN server over TCP that takes the connection and never answers keeps gathering
        /// going for about 2 s, past the offer (1 s): the offer goes with the host candidates, and
        /// the end of gathering follows in a PATCH with the session's ETag (RFC 9725 section
        /// 4.3.1), which aiortc's endpoint takes (204).
        @Test(.timeLimit(.minutes(2)))
        func whatIsGatheredAfterTheOfferIsTrickled() async throws {
            let bed = try Bed()
            defer { bed.stop() }
            let silent = try bed.namespace.start([
                "/usr/bin/python3", "-c",
                "import socket, time; s = socket.socket(); s.bind(('127.0.0.2', 3478)); s.listen(); print('listening', flush=True); "
                    + "c = s.accept(); time.sleep(600)",
            ])
            defer { silent.interrupt(); _ = silent.wait(timeout: 10) }
            try #require(silent.waitForLine(containing: "listening", in: .stdout) != nil, "\(silent.output(.stderr))")
            let publisher = try bed.namespace.start(
                WHIPPublishEndToEndTests.publishArguments(["--turn", "turn://u:p@127.0.0.2:3478?transport=tcp"]))
            defer { publisher.interrupt(); _ = publisher.wait(timeout: 10) }
            let patch = WHEPServeEndToEndTests.event(bed.endpoint.waitForLine(containing: "\"patch\"", in: .stdout))
            #expect(patch?["status"] as? Int == 204, "\(bed.endpoint.output(.stdout)) \(publisher.output(.stderr))")
            #expect(patch?["end"] as? Bool == true)
            #expect((patch?["if_match"] as? String)?.hasPrefix("\"") == true)
            #expect(Self.decodes(bed.endpoint), "\(bed.endpoint.output(.stdout)) \(publisher.output(.stderr))")
        }

        /// A new address on the host restarts ICE; aiortc's endpoint refuses restarts (422), so
        /// camrtp says so once and the session goes on as it was, still decoded.
        @Test(.timeLimit(.minutes(2)))
        func anAddressChangeProposesAnICERestartThatARefusalLeavesHarmless() async throws {
            let bed = try Bed()
            defer { bed.stop() }
            // Every usable interface: the watch sees the namespace's unique-local IPv6 address.
            let publisher = try bed.namespace.start([
                CamrtpBinary.path, "publish", "--source", "testsrc:320x240@30", "--whip", "http://127.0.0.1:\(WHIPPublishEndToEndTests.port)/whip",
            ])
            defer { publisher.interrupt(); _ = publisher.wait(timeout: 10) }
            #expect(Self.decodes(bed.endpoint), "\(bed.endpoint.output(.stdout)) \(publisher.output(.stderr))")
            let added = try ExternalTool("ip").run(["-n", bed.namespace.name, "addr", "add", "fd00:ca:ffee::9/128", "dev", "v0", "nodad"])
            try #require(added.status == 0, "\(added.stderr)")
            let restarting = publisher.waitForLine(containing: "restarting ICE: the local addresses changed (+fd00:ca:ffee::9)", in: .stderr)
            #expect(restarting != nil, "\(publisher.output(.stderr))")
            #expect(publisher.waitForLine(containing: "the endpoint takes no ICE restarts", in: .stderr) != nil, "\(publisher.output(.stderr))")
            #expect(bed.endpoint.waitForLine(containing: "\"status\": 422", in: .stdout) != nil)
            #expect(Self.decodes(bed.endpoint, frames: 200), "\(bed.endpoint.output(.stdout)) \(publisher.output(.stderr))")
            #expect(!publisher.output(.stderr).contains("reconnecting"), "\(publisher.output(.stderr))")
        }

        /// Nothing listens: camrtp tries again after about 1, 2 and 4 s, says why each time, and
        /// with --reconnect-limit 3 gives up after the third, in one last line, exit 1.
        @Test(.timeLimit(.minutes(2)))
        func anEndpointThatIsNotThereIsTriedWithAGrowingBackoff() throws {
            let refusing = try RefusingTCPPort()
            let start = MonotonicClock.nowNs()
            let result = try CamrtpBinary.run(
                ["publish", "--source", "testsrc", "--whip", "http://127.0.0.1:\(refusing.port)/whip", "--local-address", "127.0.0.1",
                 "--reconnect-limit", "3"],
                timeout: TestPatience.seconds)
            let seconds = Double(MonotonicClock.nowNs() - start) / 1e9
            #expect(result.status == 1, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 4, "\(result.stderr)")
            let delays = lines.dropLast().compactMap { line -> Double? in
                guard let range = line.range(of: "reconnecting in ") else { return nil }
                return Double(line[range.upperBound...].prefix { $0.isNumber || $0 == "." })
            }
            #expect(delays.count == 3 && delays == delays.sorted(), "\(delays)")
            #expect(zip(delays, [1.0, 2.0, 4.0]).allSatisfy { $0 >= max(1, $1 * 0.8) - 0.05 && $0 <= $1 * 1.2 + 0.05 }, "\(delays)")
            #expect(lines.dropLast().allSatisfy { $0.contains("refused the connection") }, "\(result.stderr)")
            #expect(lines.last?.contains("gave up after 3 reconnection attempts (--reconnect-limit 3)") == true, "\(result.stderr)")
            #expect(seconds >= delays.reduce(0, +), "\(seconds) s")
        }

        /// A --turn that does not parse is one line naming it, exit 2, and its password is never
        /// repeated; the same for serve.
        @Test(arguments: [
            ("turn://user:hunter2@turn.example.org:99999", "the port"),
            ("turn://turn.example.org:3478", "USER:PASS@"),
            ("stun://user:hunter2@turn.example.org", "scheme"),
            ("turn://user:hunter2%zz@turn.example.org", "%"),
            ("turns://user:hunter2@turn.example.org?transport=udp", "transport"),
            ("turns://user:hunter2@turn.example.org:5349", "(TURN over TLS) is not supported"),
        ])
        func aTURNURLThatDoesNotParseIsOneLineAndExit2(_ url: String, _ reason: String) throws {
            for command in [["publish", "--whip", "http://127.0.0.1:9/whip"], ["serve"]] {
                let result = try CamrtpBinary.run(command + ["--source", "testsrc", "--turn", url], timeout: TestPatience.seconds)
                #expect(result.status == 2, "\(result.stderr)")
                let lines = result.stderr.split(separator: "\n")
                #expect(lines.count == 1 && lines[0].contains("--turn") && lines[0].contains(reason), "\(result.stderr)")
                #expect(!result.stderr.contains("hunter2"), "\(result.stderr)")
            }
        }

        /// Figures, not checks (CAMRTP_WEBRTC_MEASURE=1): how long `publish` takes to stream again
        /// after its endpoint restarts, 10 times each way: from the old endpoint's end to the new
        /// one's first decoded frame, and from the new one listening to that frame.
        @Test(.enabled(if: ProcessInfo.processInfo.environment["CAMRTP_WEBRTC_MEASURE"] == "1"), arguments: [SIGINT, SIGKILL])
        func timeToStreamAgainAfterTheEndpointRestarts(_ signal: Int32) async throws {
            var sinceDown: [Double] = []
            var sinceListening: [Double] = []
            for _ in 0..<10 {
                let bed = try Bed()
                defer { bed.stop() }
                let publisher = try bed.namespace.start(WHIPPublishEndToEndTests.publishArguments(["--size", "640x480"]))
                defer { publisher.interrupt(); _ = publisher.wait(timeout: 10) }
                try #require(Self.decodes(bed.endpoint, frames: 10))
                let down = Double(MonotonicClock.nowNs()) / 1e9
                kill(bed.endpoint.pid, signal)
                _ = bed.endpoint.wait(timeout: TestPatience.seconds)
                let second = try Self.restartEndpoint(in: bed.namespace)
                defer { second.interrupt(); _ = second.wait(timeout: 10) }
                let first = try #require(second.waitForLine(containing: "\"frame\"", in: .stdout), "\(publisher.output(.stderr))")
                let events = WHEPServeEndToEndTests.events(second.output(.stdout))
                let listening = try #require(events.first { $0["event"] as? String == "listening" }?["t"] as? Double)
                let frameTime = try #require(WHEPServeEndToEndTests.event(first)?["t"] as? Double)
                sinceDown.append(frameTime - down)
                sinceListening.append(frameTime - listening)
            }
            let how = signal == SIGINT ? "restarts (SIGINT, sessions closed)" : "crashes (SIGKILL)"
            for (name, values) in [("from the old endpoint's end", sinceDown), ("from the new endpoint listening", sinceListening)] {
                print("publish after its endpoint \(how), \(name) to the first decoded frame: median \(DecimalText.fixed(values.median, decimals: 2)) s, "
                    + "worst \(DecimalText.fixed(values.max() ?? .nan, decimals: 2)) s (runs: \(values.map { DecimalText.fixed($0, decimals: 2) }.joined(separator: ", ")))")
            }
        }
    }
}
