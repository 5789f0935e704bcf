import Foundation
import MediaCore
import TestSupport
import Testing

extension EndToEnd {
    /// `camrtp publish` against a WHIP endpoint we did not write: aiohttp takes the POST, aiortc
    /// answers, connects (ICE, DTLS-SRTP) and decodes the VP8 track. Both run in a network
    /// namespace whose veth carries 127.0.0.2, since aioice skips 127.0.0.1.
    @Suite(.serialized) struct WHIPPublishEndToEndTests {
        static let port = 8090

        static var unavailableReason: String? {
            if let reason = NetworkNamespace.unavailableReason { return reason }
            guard let result = try? ExternalTool("/usr/bin/python3").run(["-c", "import aiortc, aiohttp"], timeout: TestPatience.seconds),
                result.status == 0
            else { return "the WHIP endpoint needs aiortc and aiohttp for /usr/bin/python3 (apt-get install python3-aiortc python3-aiohttp)" }
            return nil
        }

        /// A namespace of the test's own with the endpoint listening in it; `stop()` ends both.
        struct Bed {
            let namespace: NetworkNamespace
            let endpoint: ExternalTool.Running

            init(token: String? = nil, _ extra: [String] = []) throws {
                if let reason = WHIPPublishEndToEndTests.unavailableReason { try Test.cancel("WHIP with aiortc: \(reason)") }
                namespace = try NetworkNamespace(purpose: "whip")
                var arguments = ["/usr/bin/python3", "-u", TestTools.path("whip_endpoint.py"), "--port", String(port)]
                if let token { arguments += ["--token", token] }
                arguments += extra
                do {
                    endpoint = try namespace.start(arguments)
                } catch {
                    namespace.remove()
                    throw error
                }
                try #require(endpoint.waitForLine(containing: "\"listening\"", in: .stdout) != nil, "\(endpoint.output(.stderr))")
            }

            func stop() {
                endpoint.interrupt()
                _ = endpoint.wait(timeout: 10)
                namespace.remove()
            }
        }

        static func publishArguments(_ extra: [String] = []) -> [String] {
            [CamrtpBinary.path, "publish", "--source", "testsrc:320x240@30", "--whip", "http://127.0.0.1:\(port)/whip",
             "--local-address", NetworkNamespace.ipv4Address] + extra
        }

        @Test(.timeLimit(.minutes(3)))
        func aiortcDecodesWhatIsPublishedAndCtrlCDeletesTheSession() async throws {
            let bed = try Bed(token: "s3cret")
            defer { bed.stop() }
            let (namespace, endpoint) = (bed.namespace, bed.endpoint)

            let publisher = try namespace.start(Self.publishArguments(["--bearer", "s3cret", "--bitrate", "600"]))
            defer { if publisher.isRunning { publisher.interrupt(); _ = publisher.wait(timeout: 10) } }
            let decoded = endpoint.waitForLine(in: .stdout, timeout: TestPatience.seconds) { $0.contains("\"frame\"") && $0.contains("\"n\": 30,") }
            let frame = try #require(decoded, "aiortc decoded too little: \(endpoint.output(.stdout)) \(endpoint.output(.stderr))\n\(publisher.output(.stderr))")
            #expect(frame.contains("\"width\": 320") && frame.contains("\"height\": 240"), "\(frame)")
            #expect(endpoint.output(.stdout).contains("\"auth\": \"Bearer s3cret\""))

            publisher.interrupt()
            let result = publisher.wait(timeout: TestPatience.seconds)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("connected via"), "\(result.stderr)")
            #expect(result.stderr.contains("session ended (DELETE)"), "\(result.stderr)")
            #expect(endpoint.waitForLine(containing: "\"delete\"", in: .stdout) != nil, "\(endpoint.output(.stdout))")
        }

        /// A stream that ends by itself (--frames, the same way out as --duration) ends the session too.
        @Test(.timeLimit(.minutes(2)))
        func aStreamThatEndsDeletesTheSession() async throws {
            let bed = try Bed()
            defer { bed.stop() }
            let result = try bed.namespace.start(Self.publishArguments(["--frames", "45"])).wait(timeout: TestPatience.seconds)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("session ended (DELETE)"), "\(result.stderr)")
            #expect(bed.endpoint.waitForLine(containing: "\"delete\"", in: .stdout) != nil, "\(bed.endpoint.output(.stdout))")
        }

        @Test(.timeLimit(.minutes(2)))
        func aWrongTokenIsOneLineAndExit1() async throws {
            let bed = try Bed(token: "right")
            defer { bed.stop() }
            let result = try bed.namespace.start(Self.publishArguments(["--bearer", "wrong"])).wait(timeout: TestPatience.seconds)
            #expect(result.status == 1, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("answered 401") && lines[0].contains("--bearer"), "\(result.stderr)")
        }

        @Test(arguments: [
            (["--whip", "ftp://example/whip"], "--whip"),
            (["--whip", "http://127.0.0.1:9/whip", "--local-address", "eth0"], "--local-address"),
            (["--whip", "http://127.0.0.1:9/whip", "--cert", "/nonexistent.pem"], "--cert"),
            (["--whip", "http://127.0.0.1:9/whip", "--cert", "/nonexistent.pem", "--key", "/nonexistent.key"], "--cert"),
            (["--whip", "http://127.0.0.1:9/whip", "--stun", "host:port"], "--stun"),
            (["--whip", "http://127.0.0.1:9/whip", "--connect-timeout", "0"], "--connect-timeout"),
            (["--whip", "http://127.0.0.1:9/whip", "--keyframe-interval", "-1"], "--keyframe-interval"),
        ])
        func badInputIsOneLineAndExit2(_ arguments: [String], _ named: String) throws {
            let result = try CamrtpBinary.run(["publish", "--source", "testsrc"] + arguments, timeout: TestPatience.seconds)
            #expect(result.status == 2, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains(named), "\(result.stderr)")
        }

        /// With `--reconnect-limit 0` an endpoint that is not there ends `publish` at once, in one
        /// line; without it, camrtp keeps trying (see `WHIPReconnectionEndToEndTests`).
        @Test(.timeLimit(.minutes(1)))
        func anEndpointThatIsNotThereIsOneLineAndExit1() throws {
            let refusing = try RefusingTCPPort()
            let url = "http://127.0.0.1:\(refusing.port)/whip"
            let result = try CamrtpBinary.run(
                ["publish", "--source", "testsrc", "--whip", url, "--local-address", "127.0.0.1", "--reconnect-limit", "0"],
                timeout: TestPatience.seconds)
            #expect(result.status == 1, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("refused") && lines[0].contains("--reconnect-limit 0"), "\(result.stderr)")
        }

        /// Figures, not checks (CAMRTP_WEBRTC_MEASURE=1): from starting `camrtp publish` to the
        /// first picture aiortc decodes, with where the time goes: start-up and gathering until
        /// the POST arrives, the endpoint's answer, ICE and DTLS as camrtp measured them, and the
        /// first keyframe after DTLS.
        @Test(.enabled(if: ProcessInfo.processInfo.environment["CAMRTP_WEBRTC_MEASURE"] == "1"))
        func timeToFirstDecodedFrame() async throws {
            var rows: [[Double]] = []
            for _ in 0..<5 {
                let bed = try Bed()
                defer { bed.stop() }
                let (namespace, endpoint) = (bed.namespace, bed.endpoint)
                let start = Double(MonotonicClock.nowNs()) / 1e9
                let publisher = try namespace.start(Self.publishArguments(["--size", "640x480"]))
                let first = endpoint.waitForLine(in: .stdout, timeout: TestPatience.seconds) { $0.contains("\"frame\"") }
                publisher.interrupt()
                let result = publisher.wait(timeout: TestPatience.seconds)
                try #require(first != nil && result.status == 0, "\(result.stderr)")
                let events = try endpoint.output(.stdout).split(separator: "\n").map {
                    try JSONDecoder().decode(EndpointEvent.self, from: Data($0.utf8))
                }
                func time(_ name: String, _ state: String? = nil) -> Double {
                    events.first { $0.event == name && (state == nil || $0.state == state) }.map { ($0.t - start) * 1000 } ?? .nan
                }
                let ice = Self.figure(after: "ICE ", in: result.stderr), dtls = Self.figure(after: "DTLS ", in: result.stderr)
                let keyframe = Self.figure(after: "first keyframe ", in: result.stderr)
                rows.append([time("offer"), time("answer"), ice, dtls, keyframe, time("frame")])
            }
            let names = ["POST arrives", "201 sent", "ICE (camrtp)", "DTLS (camrtp)", "first keyframe after DTLS", "first decoded frame"]
            for (index, name) in names.enumerated() {
                let values = rows.map { $0[index] }
                print("publish 640x480 to aiortc, \(name): median \(DecimalText.fixed(values.median, decimals: 1)) ms "
                    + "(runs: \(values.map { DecimalText.fixed($0, decimals: 1) }.joined(separator: ", ")))")
            }
        }

        struct EndpointEvent: Decodable {
            let event: String
            let t: Double
            let state: String?
        }

        /// The number of milliseconds after `label` in camrtp's notes ("ICE 63.1 ms").
        static func figure(after label: String, in text: String) -> Double {
            guard let range = text.range(of: label) else { return .nan }
            return Double(text[range.upperBound...].prefix { $0.isNumber || $0 == "." }) ?? .nan
        }
    }
}
