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
            guard let result = try? ExternalTool("/usr/bin/python3").run(["-c", "import aiortc, aiohttp"], timeout: 60),
                result.status == 0
            else { return "the WHIP endpoint needs aiortc and aiohttp for /usr/bin/python3 (apt-get install python3-aiortc python3-aiohttp)" }
            return nil
        }

        /// The endpoint running in `namespace`, listening once this returns.
        static func startEndpoint(in namespace: NetworkNamespace, token: String? = nil) throws -> ExternalTool.Running {
            var arguments = ["/usr/bin/python3", "-u", TestTools.path("whip_endpoint.py"), "--port", String(port)]
            if let token { arguments += ["--token", token] }
            let endpoint = try namespace.start(arguments)
            try #require(endpoint.waitForLine(containing: "\"listening\"", in: .stdout) != nil, "\(endpoint.output(.stderr))")
            return endpoint
        }

        static func publishArguments(_ extra: [String] = []) -> [String] {
            [CamrtpBinary.path, "publish", "--source", "testsrc:320x240@30", "--whip", "http://127.0.0.1:\(port)/whip",
             "--local-address", NetworkNamespace.ipv4Address] + extra
        }

        @Test(.timeLimit(.minutes(3)))
        func aiortcDecodesWhatIsPublishedAndCtrlCDeletesTheSession() async throws {
            if let reason = Self.unavailableReason { try Test.cancel("WHIP with aiortc: \(reason)") }
            let namespace = try NetworkNamespace(purpose: "whip")
            defer { namespace.remove() }
            let endpoint = try Self.startEndpoint(in: namespace, token: "s3cret")
            defer { endpoint.interrupt(); _ = endpoint.wait(timeout: 10) }

            let publisher = try namespace.start(Self.publishArguments(["--bearer", "s3cret", "--bitrate", "600"]))
            defer { if publisher.isRunning { publisher.interrupt(); _ = publisher.wait(timeout: 10) } }
            let decoded = endpoint.waitForLine(in: .stdout, timeout: 120) { $0.contains("\"frame\"") && $0.contains("\"n\": 30,") }
            let frame = try #require(decoded, "aiortc decoded too little: \(endpoint.output(.stdout)) \(endpoint.output(.stderr))\n\(publisher.output(.stderr))")
            #expect(frame.contains("\"width\": 320") && frame.contains("\"height\": 240"), "\(frame)")
            #expect(endpoint.output(.stdout).contains("\"auth\": \"Bearer s3cret\""))

            publisher.interrupt()
            let result = publisher.wait(timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("connected via"), "\(result.stderr)")
            #expect(result.stderr.contains("session ended (DELETE)"), "\(result.stderr)")
            #expect(endpoint.waitForLine(containing: "\"delete\"", in: .stdout) != nil, "\(endpoint.output(.stdout))")
        }

        @Test(.timeLimit(.minutes(2)))
        func aWrongTokenIsOneLineAndExit1() async throws {
            if let reason = Self.unavailableReason { try Test.cancel("WHIP with aiortc: \(reason)") }
            let namespace = try NetworkNamespace(purpose: "whip")
            defer { namespace.remove() }
            let endpoint = try Self.startEndpoint(in: namespace, token: "right")
            defer { endpoint.interrupt(); _ = endpoint.wait(timeout: 10) }
            let result = try namespace.start(Self.publishArguments(["--bearer", "wrong"])).wait(timeout: 60)
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
            let result = try CamrtpBinary.run(["publish", "--source", "testsrc"] + arguments, timeout: 60)
            #expect(result.status == 2, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains(named), "\(result.stderr)")
        }

        @Test(.timeLimit(.minutes(1)))
        func anEndpointThatIsNotThereIsOneLineAndExit1() throws {
            let refusing = try RefusingTCPPort()
            let url = "http://127.0.0.1:\(refusing.port)/whip"
            let result = try CamrtpBinary.run(["publish", "--source", "testsrc", "--whip", url, "--local-address", "127.0.0.1"], timeout: 60)
            #expect(result.status == 1, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("refused"), "\(result.stderr)")
        }
    }
}
