import Foundation
import MediaCore
import TestSupport
import Testing

extension EndToEnd {
    /// `camrtp serve` played by peers we did not write: aiortc as a WHEP client, and headless
    /// Chromium on the viewer page, driven over the DevTools protocol. Everything runs in a
    /// network namespace whose veth carries 127.0.0.2 (aioice skips 127.0.0.1; camrtp offers
    /// candidates on that address only).
    @Suite(.serialized) struct WHEPServeEndToEndTests {
        /// The same needs as the WHIP tests: namespaces, and aiortc with aiohttp.
        static var unavailableReason: String? { WHIPPublishEndToEndTests.unavailableReason }

        /// A namespace with `camrtp serve` listening in it; `stop()` interrupts camrtp (the clean
        /// way out) and returns how it ended.
        struct Bed {
            let namespace: NetworkNamespace
            let server: ExternalTool.Running
            let base: String

            init(source: String = "testsrc:320x240@30", _ extra: [String] = [], environment: [String: String] = [:]) throws {
                if let reason = WHEPServeEndToEndTests.unavailableReason { try Test.cancel("WHEP with aiortc: \(reason)") }
                namespace = try NetworkNamespace(purpose: "whep")
                do {
                    server = try namespace.start(
                        [CamrtpBinary.path, "serve", "--source", source, "--http", "127.0.0.1:0",
                         "--local-address", NetworkNamespace.ipv4Address] + extra, environment: environment)
                } catch {
                    namespace.remove()
                    throw error
                }
                let line = server.waitForLine(containing: "serving", in: .stderr)
                // http:// or https://
                guard let line, let start = line.range(of: " at http"), let end = line[start.upperBound...].firstIndex(of: " ") else {
                    let output = server.output(.stderr)
                    server.interrupt()
                    _ = server.wait(timeout: 10)
                    namespace.remove()
                    throw StartFailure(description: "camrtp serve did not start: \(output)")
                }
                base = "http" + line[start.upperBound..<end]
            }

            func viewer(_ arguments: [String]) throws -> ExternalTool.Running {
                try namespace.start(["/usr/bin/python3", "-u", TestTools.path("whep_viewer.py"), "--url", base + "whep"] + arguments)
            }

            /// nftables in the namespace drops `percent` % of the UDP datagrams over 600 bytes at
            /// random: media, and little else (STUN, RTCP and most DTLS are smaller).
            func dropLargeDatagrams(percent: Int) throws {
                guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/nft") else { try Test.cancel("needs nft (apt-get install nftables)") }
                for rule in [
                    ["add", "table", "inet", "loss"],
                    ["add", "chain", "inet", "loss", "out", "{ type filter hook output priority 0; }"],
                    ["add", "rule", "inet", "loss", "out", "meta", "l4proto", "udp", "udp", "length", ">", "600", "numgen", "random", "mod", "100", "<", "\(percent)", "drop"],
                ] {
                    let result = try namespace.start(["/usr/sbin/nft"] + rule).wait(timeout: TestPatience.seconds)
                    try #require(result.status == 0, "nft \(rule.joined(separator: " ")): \(result.stderr)")
                }
            }

            @discardableResult
            func stop() -> ExternalTool.Result {
                server.interrupt()
                let result = server.wait(timeout: TestPatience.seconds)
                namespace.remove()
                return result
            }
        }

        struct StartFailure: Error, CustomStringConvertible {
            let description: String
        }

        /// The JSON lines a tool printed, as dictionaries.
        static func events(_ output: String) -> [[String: Any]] {
            output.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }
        }

        static func event(_ line: String?) -> [String: Any]? {
            line.flatMap { events($0).first }
        }

        @Test(.timeLimit(.minutes(3)))
        func aiortcPlaysTheStreamAndDeleteEndsTheSession() async throws {
            let bed = try Bed()
            let viewer = try bed.viewer(["--frames", "30", "--delete"])
            let post = Self.event(viewer.waitForLine(containing: "\"post\"", in: .stdout))
            #expect(post?["status"] as? Int == 201, "\(viewer.output(.stdout)) \(viewer.output(.stderr))")
            #expect((post?["location"] as? String)?.hasPrefix("/whep/") == true)
            let frame = Self.event(viewer.waitForLine(in: .stdout, timeout: TestPatience.seconds) { $0.contains("\"frame\"") && $0.contains("\"n\": 30,") })
            #expect(frame?["width"] as? Int == 320 && frame?["height"] as? Int == 240, "\(viewer.output(.stdout)) \(bed.server.output(.stderr))")
            let deleted = Self.event(viewer.waitForLine(containing: "\"delete\"", in: .stdout))
            #expect(deleted?["status"] as? Int == 200)
            // The server closes the viewer: its line comes once the sender is finished.
            #expect(bed.server.waitForLine(containing: "viewer 1 left", in: .stderr) != nil, "\(bed.server.output(.stderr))")
            _ = viewer.wait(timeout: 30)
            // The session is gone: a second DELETE of it is 404.
            let location = try #require(post?["location"] as? String)
            let again = try bed.namespace.start(["/usr/bin/curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "DELETE", bed.base.dropLast() + location])
                .wait(timeout: TestPatience.seconds)
            #expect(again.stdout == "404")

            let result = bed.stop()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("every viewer closed"), "\(result.stderr)")
        }

        /// Ctrl-C with a viewer playing: camrtp closes it (RTCP BYE, DTLS close_notify), the
        /// viewer's track ends, and camrtp exits 0 without an error on the way.
        @Test(.timeLimit(.minutes(2)))
        func ctrlCClosesAPlayingViewer() async throws {
            let bed = try Bed()
            let viewer = try bed.viewer(["--frames", "100000"])
            defer { viewer.interrupt(); _ = viewer.wait(timeout: 10) }
            let playing = viewer.waitForLine(in: .stdout, timeout: TestPatience.seconds) { $0.contains("\"frame\"") && $0.contains("\"n\": 30,") }
            #expect(playing != nil, "\(viewer.output(.stdout)) \(bed.server.output(.stderr))")
            let result = bed.stop()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("viewer 1 left"), "\(result.stderr)")
            #expect(!result.stderr.contains(" error "), "\(result.stderr)")
            #expect(viewer.waitForLine(containing: "\"track-ended\"", in: .stdout) != nil, "\(viewer.output(.stdout))")
        }

        /// Two viewers at once; the second joins while the first plays, and gets its first frame
        /// from the keyframe its arrival asked for (the time is printed, not asserted).
        @Test(.timeLimit(.minutes(3)))
        func aLateViewerJoinsAWatchedStreamAndBothPlay() async throws {
            let bed = try Bed()
            defer { bed.stop() }
            let first = try bed.viewer(["--frames", "150", "--delete"])
            _ = first.waitForLine(in: .stdout, timeout: 90) { $0.contains("\"frame\"") && $0.contains("\"n\": 10,") }
            let late = try bed.viewer(["--frames", "30", "--delete"])
            let posted = Self.event(late.waitForLine(containing: "\"post\"", in: .stdout))
            let firstFrame = Self.event(late.waitForLine(containing: "\"frame\"", in: .stdout, timeout: TestPatience.seconds))
            let lateDone = Self.event(late.waitForLine(containing: "\"done\"", in: .stdout, timeout: TestPatience.seconds))
            let firstDone = Self.event(first.waitForLine(containing: "\"done\"", in: .stdout, timeout: TestPatience.seconds))
            #expect(lateDone?["frames"] as? Int == 30, "\(late.output(.stdout)) \(bed.server.output(.stderr))")
            #expect(firstDone?["frames"] as? Int == 150, "\(first.output(.stdout))")
            #expect(firstFrame?["width"] as? Int == 320)
            if let postedAt = posted?["t"] as? Double, let shownAt = firstFrame?["t"] as? Double {
                print("late viewer: first decoded frame \(Int((shownAt - postedAt) * 1000)) ms after its POST was answered")
            }
            // Both sessions end with their DELETE, each with its time to the first frame.
            for id in 1...2 {
                let left = bed.server.waitForLine(containing: "viewer \(id) left", in: .stderr)
                #expect(left?.contains("first frame") == true, "\(bed.server.output(.stderr))")
            }
        }

        @Test(.timeLimit(.minutes(2)))
        func aBadOfferGets400WithTheReason() async throws {
            let bed = try Bed()
            defer { bed.stop() }
            let result = try bed.namespace.start([
                "/usr/bin/curl", "-s", "-w", "\n%{http_code}", "-X", "POST", "-H", "Content-Type: application/sdp",
                "--data-binary", "v=0\r\nm=video nonsense\r\n", bed.base + "whep",
            ]).wait(timeout: TestPatience.seconds)
            let lines = result.stdout.split(separator: "\n")
            #expect(lines.last == "400", "\(result.stdout)")
            #expect(lines.first?.contains("SDP") == true, "\(result.stdout)")
            #expect(bed.server.isRunning)
        }

        /// The viewer page in a real browser: Chromium plays it, its getStats shows frames
        /// decoded at the source's size with an RTT, the Keyframe button is answered, and a
        /// screenshot (kept under .build/test-artifacts) shows the moving test pattern.
        @Test(.timeLimit(.minutes(3)))
        func chromiumPlaysTheViewerPage() async throws {
            guard ExternalTool.locate("chromium") != nil else { try Test.cancel("needs chromium (apt-get install chromium)") }
            let bed = try Bed()
            defer { bed.stop() }
            let artifacts = Self.artifactDirectory
            try FileManager.default.createDirectory(atPath: artifacts, withIntermediateDirectories: true)
            let screenshot = artifacts + "/whep-viewer-chromium.png"
            try? FileManager.default.removeItem(atPath: screenshot)
            let browser = try bed.namespace.start([
                "/usr/bin/python3", "-u", TestTools.path("chromium_viewer.py"), "--url", bed.base, "--screenshot", screenshot, "--frames", "60",
            ])
            let result = browser.wait(timeout: 150)
            #expect(result.status == 0, "\(result.stdout) \(result.stderr) \(bed.server.output(.stderr))")
            let events = Self.events(result.stdout)
            let stats = events.compactMap { ($0["viewer"] as? [String: Any])?["stats"] as? [String: Any] }.last
            #expect((stats?["framesDecoded"] as? Int ?? 0) >= 60, "\(result.stdout)")
            #expect(stats?["frameWidth"] as? Int == 320 && stats?["frameHeight"] as? Int == 240, "\(result.stdout)")
            #expect(stats?["rttMs"] as? Double != nil, "\(result.stdout)")
            #expect(events.first { $0["event"] as? String == "keyframe" }?["requests"] as? Int == 1)
            #expect(events.first { $0["event"] as? String == "stopped" }?["state"] as? String == "closed")

            // The page's video element (640 px wide at its top left) shows the pattern: many
            // colours, not a black or empty box.
            let colours = try ImageDecoding.videoColourCount(inScreenshot: screenshot)
            #expect(colours > 100, "the screenshot at \(screenshot) looks blank: \(colours) colours")
            // The session ended with the page's Disconnect (DELETE).
            #expect(bed.server.waitForLine(containing: "viewer 1 left", in: .stderr) != nil)
        }

        /// Chromium on a stream of three temporal layers decodes every frame it receives: none
        /// dropped, and no more than the few in its jitter buffer received but not yet decoded
        /// (a layer it could not decode would leave half the frames behind).
        @Test(.timeLimit(.minutes(3)))
        func chromiumDecodesEveryFrameOfThreeTemporalLayers() async throws {
            guard ExternalTool.locate("chromium") != nil else { try Test.cancel("needs chromium (apt-get install chromium)") }
            let bed = try Bed(["--temporal-layers", "3"])
            defer { bed.stop() }
            try FileManager.default.createDirectory(atPath: Self.artifactDirectory, withIntermediateDirectories: true)
            let result = try bed.namespace.start([
                "/usr/bin/python3", "-u", TestTools.path("chromium_viewer.py"), "--url", bed.base,
                "--screenshot", Self.artifactDirectory + "/whep-viewer-chromium-layers.png", "--frames", "150",
            ]).wait(timeout: 150)
            #expect(result.status == 0, "\(result.stdout) \(result.stderr) \(bed.server.output(.stderr))")
            let stats = Self.events(result.stdout).compactMap { ($0["viewer"] as? [String: Any])?["stats"] as? [String: Any] }.last
            let decoded = stats?["framesDecoded"] as? Int ?? 0, received = stats?["framesReceived"] as? Int ?? 0
            #expect(decoded >= 150, "\(result.stdout)")
            #expect(stats?["framesDropped"] as? Int == 0, "\(result.stdout)")
            #expect(received >= decoded && received - decoded <= 10, "received \(received), decoded \(decoded)")
        }

        /// Packets lost on the way: nftables in the namespace drops 5 % of the large UDP datagrams
        /// (media; STUN, RTCP and most DTLS are smaller). Chromium NACKs them, camrtp resends
        /// them (RTX), and the page still decodes every frame it needs.
        @Test(.timeLimit(.minutes(3)))
        func chromiumNACKsLostPacketsAndCamrtpResendsThem() async throws {
            guard ExternalTool.locate("chromium") != nil else { try Test.cancel("needs chromium (apt-get install chromium)") }
            let bed = try Bed()
            defer { bed.stop() }
            try bed.dropLargeDatagrams(percent: 5)
            let screenshot = Self.artifactDirectory + "/whep-viewer-chromium-loss.png"
            try FileManager.default.createDirectory(atPath: Self.artifactDirectory, withIntermediateDirectories: true)
            let result = try bed.namespace.start([
                "/usr/bin/python3", "-u", TestTools.path("chromium_viewer.py"), "--url", bed.base, "--screenshot", screenshot,
                "--frames", "240", "--min-nacks", "1",
            ]).wait(timeout: 150)
            #expect(result.status == 0, "\(result.stdout) \(result.stderr) \(bed.server.output(.stderr))")
            let stats = Self.events(result.stdout).compactMap { ($0["viewer"] as? [String: Any])?["stats"] as? [String: Any] }.last
            #expect((stats?["nackCount"] as? Int ?? 0) > 0, "\(result.stdout)")
            #expect((stats?["framesDecoded"] as? Int ?? 0) >= 240, "\(result.stdout)")
            let left = bed.server.waitForLine(containing: "viewer 1 left", in: .stderr)
            #expect(left?.contains("resent") == true, "\(bed.server.output(.stderr))")
            print("under 5 % loss: the page sent \(stats?["nackCount"] ?? 0) NACKs and \(stats?["pliCount"] ?? 0) PLIs; \(left ?? "")")
        }

        @Test(arguments: [
            (["--http", "nonsense"], "--http"),
            (["--http", "127.0.0.1:99999"], "--http"),
            (["--max-viewers", "0"], "--max-viewers"),
            (["--local-address", "eth0"], "--local-address"),
            (["--cert", "/nonexistent.pem"], "--cert"),
            (["--stun", "host:port"], "--stun"),
        ])
        func badInputIsOneLineAndExit2(_ arguments: [String], _ named: String) throws {
            let result = try CamrtpBinary.run(["serve", "--source", "testsrc"] + arguments, timeout: TestPatience.seconds)
            #expect(result.status == 2, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains(named), "\(result.stderr)")
        }

        @Test(.timeLimit(.minutes(1)))
        func aPortInUseIsOneLineAndExit2() throws {
            let socket = try RefusingTCPPort()
            let result = try CamrtpBinary.run(["serve", "--source", "testsrc", "--http", "127.0.0.1:\(socket.port)"], timeout: TestPatience.seconds)
            #expect(result.status == 2, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("--http"), "\(result.stderr)")
        }

        /// `.build/test-artifacts` of this checkout, or `CAMRTP_TEST_ARTIFACTS`.
        static var artifactDirectory: String {
            if let directory = ProcessInfo.processInfo.environment["CAMRTP_TEST_ARTIFACTS"] { return directory }
            var components = #filePath.split(separator: "/", omittingEmptySubsequences: false)
            components.removeLast(3)  // Tests/EndToEndTests/<this file>
            return (components + [".build", "test-artifacts"]).joined(separator: "/")
        }
    }
}
