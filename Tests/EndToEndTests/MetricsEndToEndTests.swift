import Foundation
import Glibc
import TestSupport
import Testing

extension EndToEnd {
    /// `/metrics` read by a parser we did not write (Python's prometheus_client), and its figures
    /// checked against the run's own `--stats-json`.
    @Suite(.serialized) struct MetricsEndToEndTests {
        static var unavailableReason: String? {
            guard let result = try? ExternalTool("/usr/bin/python3").run(["-c", "import prometheus_client"], timeout: TestPatience.seconds),
                result.status == 0
            else { return "needs prometheus_client for /usr/bin/python3 (apt-get install python3-prometheus-client)" }
            return nil
        }

        /// One scrape, parsed.
        struct Scrape {
            let status: Int
            let families: [String: String]
            let samples: [(name: String, labels: [String: String], value: Double)]
            let text: String
            let body: String

            init(_ output: String) throws {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "\(output)")
                status = object["status"] as? Int ?? 0
                families = object["families"] as? [String: String] ?? [:]
                samples = (object["samples"] as? [[String: Any]] ?? []).map {
                    ($0["name"] as? String ?? "", $0["labels"] as? [String: String] ?? [:], $0["value"] as? Double ?? .nan)
                }
                text = object["text"] as? String ?? ""
                body = object["body"] as? String ?? ""
            }

            func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
                samples.first { $0.name == name && $0.labels == labels }?.value
            }

            func sum(_ name: String) -> Double {
                samples.filter { $0.name == name }.reduce(0) { $0 + $1.value }
            }
        }

        static func scrape(_ url: String, token: String? = nil, in namespace: NetworkNamespace? = nil) throws -> Scrape {
            var command = ["/usr/bin/python3", TestTools.path("scrape_metrics.py"), "--url", url]
            if let token { command += ["--token", token] }
            let tool = try namespace.map { try $0.start(command) } ?? ExternalTool(command[0]).start(Array(command.dropFirst()))
            let result = tool.wait(timeout: TestPatience.seconds)
            try #require(result.status == 0, "scrape_metrics.py: \(result.stderr)")
            return try Scrape(result.stdout)
        }

        /// `send --metrics`: a source that pauses (a FIFO the test writes 45 frames into) lets the
        /// scrape catch the stream between its last frame and its end; then the final
        /// `--stats-json` must say the same of every frame, and the packets sent since the scrape
        /// must be RTCP alone (the BYE at the end, a report or two).
        @Test(.timeLimit(.minutes(3)))
        func sendMetricsAgreeWithTheStatsJSON() async throws {
            if let reason = Self.unavailableReason { try Test.cancel(Comment(rawValue: reason)) }
            let directory = TemporaryDirectory()
            let clip = directory.file("clip.y4m"), fifo = directory.file("fifo.y4m"), json = directory.file("stats.json")
            try Y4MFile.writeTestPattern(to: clip, width: 320, height: 240, count: 45)
            try #require(mkfifo(fifo, 0o600) == 0)
            let sender = try CamrtpBinary.tool.start([
                "send", "--source", "y4m:\(fifo)", "--to", "127.0.0.1:\(UDPPorts.freePair())", "--metrics", "127.0.0.1:0",
                "--stats-json", json, "--bitrate", "400", "--no-transport-cc",
            ])
            defer { if sender.isRunning { sender.interrupt(); _ = sender.wait(timeout: 10) } }
            let listening = try #require(sender.waitForLine(containing: "metrics at http://", in: .stderr), "\(sender.output(.stderr))" as Comment)
            let url = String(listening[try #require(listening.range(of: "http://")).lowerBound...]).trimmingCharacters(in: .whitespaces)

            // The writer blocks until camrtp has read it all, paced at the clip's 30 fps.
            let frames = try Data(contentsOf: URL(fileURLWithPath: clip))
            let writer = try #require(FileHandle(forWritingAtPath: fifo))
            let written = Task.detached { writer.write(frames) }
            await written.value

            // Wait until every frame is accounted for and every encoded one is on the wire.
            var scrape = try Self.scrape(url)
            while !(scrape.value("camrtp_frames_captured_total") == 45
                && scrape.value("camrtp_frames_encoded_total").map({ $0 + scrape.sum("camrtp_frames_dropped_total") }) == 45
                && scrape.value("camrtp_capture_to_wire_latency_seconds_count") == scrape.value("camrtp_frames_encoded_total")) {
                try #require(sender.isRunning, "\(sender.output(.stderr))")
                try await Task.sleep(for: .milliseconds(100))
                scrape = try Self.scrape(url)
            }
            try writer.close()
            let result = sender.wait(timeout: TestPatience.seconds)
            #expect(result.status == 0, "\(result.stderr)")
            let stats = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])

            #expect(scrape.families["camrtp_frames_captured"] == "counter")
            #expect(scrape.families["camrtp_encode_duration_seconds"] == "histogram")
            #expect(scrape.families["camrtp_sent_bitrate_bits_per_second"] == "gauge")
            #expect(scrape.value("camrtp_frames_captured_total") == Double(stats["framesCaptured"] as? Int ?? -1))
            #expect(scrape.value("camrtp_frames_encoded_total") == Double(stats["framesEncoded"] as? Int ?? -1))
            #expect(scrape.value("camrtp_keyframes_encoded_total") == Double(stats["keyframes"] as? Int ?? -1))
            #expect(scrape.value("camrtp_encode_duration_seconds_count") == Double(stats["framesEncoded"] as? Int ?? -1))
            let dropped = stats["framesDropped"] as? [String: Int] ?? [:]
            for sample in scrape.samples where sample.name == "camrtp_frames_dropped_total" {
                #expect(sample.value == Double(dropped[sample.labels["reason"] ?? ""] ?? 0), "\(sample.labels)")
            }
            let packets = try #require(scrape.value("camrtp_sent_packets_total")), bytes = try #require(scrape.value("camrtp_sent_bytes_total"))
            let laterPackets = Double(stats["packetsSent"] as? Int ?? 0) - packets, laterBytes = Double(stats["bytesSent"] as? Int ?? 0) - bytes
            #expect(packets > 45 && laterPackets >= 1, "scraped \(packets), final \(stats["packetsSent"] ?? "-")")
            #expect(laterBytes <= 200 * laterPackets, "after the scrape: \(laterPackets) packets of \(laterBytes) bytes")
            #expect((scrape.value("camrtp_sent_bitrate_bits_per_second") ?? 0) > 0)
        }

        /// `serve`'s /metrics behind the viewers' token: series per viewer, labelled with its
        /// resource id (never its token), gone when it leaves.
        @Test(.timeLimit(.minutes(3)))
        func serveMetricsPerViewerBehindTheToken() async throws {
            if let reason = Self.unavailableReason { try Test.cancel(Comment(rawValue: reason)) }
            let directory = TemporaryDirectory()
            let tokens = directory.file("tokens"), json = directory.file("stats.json")
            try "viewer-secret\n".write(toFile: tokens, atomically: true, encoding: .utf8)
            let bed = try WHEPServeEndToEndTests.Bed(source: "testsrc:320x240@30", ["--token-file", tokens, "--stats-json", json])
            defer { bed.stop() }
            let url = bed.base + "metrics"
            #expect(try Self.scrape(url, in: bed.namespace).status == 401)
            let idle = try Self.scrape(url, token: "viewer-secret", in: bed.namespace)
            #expect(idle.value("camrtp_viewers_connected") == 0)

            let viewer = try bed.viewer(["--frames", "100000", "--token", "viewer-secret"])
            defer { if viewer.isRunning { viewer.interrupt(); _ = viewer.wait(timeout: 10) } }
            let post = WHEPServeEndToEndTests.event(viewer.waitForLine(containing: "\"post\"", in: .stdout))
            let location = try #require(post?["location"] as? String, "\(viewer.output(.stdout))" as Comment)
            let id = String(location.dropFirst("/whep/".count))
            _ = viewer.waitForLine(in: .stdout, timeout: TestPatience.seconds) { $0.contains("\"frame\"") && $0.contains("\"n\": 30,") }
            var playing = try Self.scrape(url, token: "viewer-secret", in: bed.namespace)
            // aiortc's receiver reports give the RTT once one has come back.
            while playing.value("camrtp_viewer_rtt_seconds", ["viewer": id]) == nil {
                try #require(viewer.isRunning, "\(viewer.output(.stdout)) \(viewer.output(.stderr))")
                try await Task.sleep(for: .milliseconds(200))
                playing = try Self.scrape(url, token: "viewer-secret", in: bed.namespace)
            }
            #expect(playing.value("camrtp_viewers_connected") == 1)
            #expect((playing.value("camrtp_viewer_frames_forwarded_total", ["viewer": id]) ?? 0) >= 30)
            #expect((playing.value("camrtp_viewer_sent_packets_total", ["viewer": id]) ?? 0) > 30)
            #expect((playing.value("camrtp_viewer_rtcp_received_total", ["viewer": id, "type": "rr"]) ?? 0) >= 1, "\(playing.text)")
            #expect((playing.value("camrtp_viewer_rtt_seconds", ["viewer": id]) ?? 1) < 1)
            #expect(playing.value("camrtp_viewer_target_bitrate_bits_per_second", ["viewer": id]) != nil)
            // One viewer: the stream's traffic is that viewer's.
            #expect(playing.value("camrtp_sent_packets_total") ?? 0 >= playing.value("camrtp_viewer_sent_packets_total", ["viewer": id]) ?? .infinity)
            #expect(!playing.text.contains("viewer-secret"))

            // Its DELETE needs no token: the resource id is the capability.
            let deleted = try bed.namespace.start(["/usr/bin/curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "DELETE", bed.base + "whep/" + id])
                .wait(timeout: TestPatience.seconds)
            #expect(deleted.stdout == "200")
            #expect(bed.server.waitForLine(containing: "viewer 1 left", in: .stderr) != nil, "\(bed.server.output(.stderr))")
            let after = try Self.scrape(url, token: "viewer-secret", in: bed.namespace)
            #expect(after.value("camrtp_viewers_connected") == 0)
            #expect(!after.samples.contains { $0.labels["viewer"] != nil }, "\(after.text)")

            let result = bed.stop()
            #expect(result.status == 0, "\(result.stderr)")
            let stats = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
            // The counters only grow: what the last scrape saw, the final figures include.
            #expect(Double(stats["framesCaptured"] as? Int ?? 0) >= after.value("camrtp_frames_captured_total") ?? .infinity)
            #expect(Double(stats["packetsSent"] as? Int ?? 0) >= after.value("camrtp_sent_packets_total") ?? .infinity)
        }

        @Test(.timeLimit(.minutes(1)))
        func aMetricsAddressThatCannotBeUsedIsOneLineAndExit2() throws {
            let taken = try RefusingTCPPort()
            for address in ["127.0.0.1:\(taken.port)", "nonsense", "127.0.0.1:70000"] {
                let result = try CamrtpBinary.run(
                    ["send", "--source", "testsrc", "--to", "127.0.0.1:\(UDPPorts.freePair())", "--metrics", address], timeout: TestPatience.seconds)
                #expect(result.status == 2, "\(address): \(result.stderr)")
                let lines = result.stderr.split(separator: "\n")
                #expect(lines.count == 1 && lines[0].contains("--metrics"), "\(address): \(result.stderr)")
            }
        }
    }
}
