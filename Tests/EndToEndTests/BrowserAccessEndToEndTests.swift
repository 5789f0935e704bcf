import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// The viewer page with a token, over HTTPS, in both browsers we can run: headless Chromium
    /// (DevTools protocol) told to trust the test's certificate, and headless Firefox ESR
    /// (WebDriver BiDi) whose session accepts it. The token travels in the URL's fragment.
    @Suite(.serialized) struct BrowserAccessEndToEndTests {
        typealias Bed = WHEPServeEndToEndTests.Bed
        static let token = "browser-token_1"

        /// `serve` with a token file and a certificate in the bed's namespace.
        struct SecureBed {
            let secrets: ServeAccessEndToEndTests.Secrets
            let bed: Bed

            init(_ extra: [String] = []) throws {
                secrets = try ServeAccessEndToEndTests.Secrets(token: BrowserAccessEndToEndTests.token)
                bed = try Bed(secrets.serveArguments + extra)
            }

            var certificate: TestCertificate { secrets.certificate }
            var pageURL: String { bed.base + "#token=" + BrowserAccessEndToEndTests.token }
        }

        static func lastStats(_ output: String) -> [String: Any]? {
            WHEPServeEndToEndTests.events(output).compactMap { ($0["viewer"] as? [String: Any])?["stats"] as? [String: Any] }.last
        }

        @Test(.timeLimit(.minutes(3)))
        func chromiumPlaysTheViewerPageWithATokenOverHTTPS() async throws {
            guard ExternalTool.locate("chromium") != nil else { try Test.cancel("needs chromium (apt-get install chromium)") }
            let secure = try SecureBed()
            defer { secure.bed.stop() }
            try FileManager.default.createDirectory(atPath: WHEPServeEndToEndTests.artifactDirectory, withIntermediateDirectories: true)
            let screenshot = WHEPServeEndToEndTests.artifactDirectory + "/whep-viewer-chromium-https.png"
            let result = try secure.bed.namespace.start([
                "/usr/bin/python3", "-u", TestTools.path("chromium_viewer.py"), "--url", secure.pageURL, "--frames", "60",
                "--trust-certificate", secure.certificate.certificatePath, "--screenshot", screenshot,
            ]).wait(timeout: 150)
            #expect(result.status == 0, "\(result.stdout) \(result.stderr) \(secure.bed.server.output(.stderr))")
            let stats = Self.lastStats(result.stdout)
            #expect((stats?["framesDecoded"] as? Int ?? 0) >= 60, "\(result.stdout)")
            #expect(stats?["frameWidth"] as? Int == 320, "\(result.stdout)")
            #expect(secure.bed.server.waitForLine(containing: "viewer 1 left", in: .stderr) != nil)
            let colours = try ImageDecoding.videoColourCount(inScreenshot: screenshot)
            #expect(colours > 100, "the screenshot at \(screenshot) looks blank: \(colours) colours")
        }

        /// Firefox gathers host candidates only on an address outside 127/8 that has a default
        /// route: the namespace gets 192.0.2.1/24 (TEST-NET-1) on its veth, whose peer stays in the
        /// namespace, so nothing leaves; camrtp offers its candidates there too.
        @Test(.timeLimit(.minutes(3)))
        func firefoxPlaysTheViewerPageWithATokenOverHTTPS() async throws {
            guard ExternalTool.locate("firefox-esr") != nil else { try Test.cancel("needs firefox-esr (apt-get install firefox-esr)") }
            let secure = try SecureBed(["--local-address", "192.0.2.1"])
            defer { secure.bed.stop() }
            for command in [["addr", "add", "192.0.2.1/24", "dev", "v0"], ["route", "add", "default", "dev", "v0"]] {
                let result = try secure.bed.namespace.start(["/usr/sbin/ip"] + command).wait(timeout: TestPatience.seconds)
                try #require(result.status == 0, "ip \(command.joined(separator: " ")): \(result.stderr)")
            }
            try FileManager.default.createDirectory(atPath: WHEPServeEndToEndTests.artifactDirectory, withIntermediateDirectories: true)
            let screenshot = WHEPServeEndToEndTests.artifactDirectory + "/whep-viewer-firefox-https.png"
            let result = try secure.bed.namespace.start([
                "/usr/bin/python3", "-u", TestTools.path("firefox_viewer.py"), "--url", secure.pageURL, "--frames", "60",
                "--screenshot", screenshot,
            ]).wait(timeout: 150)
            #expect(result.status == 0, "\(result.stdout) \(result.stderr) \(secure.bed.server.output(.stderr))")
            let events = WHEPServeEndToEndTests.events(result.stdout)
            let stats = Self.lastStats(result.stdout)
            #expect((stats?["framesDecoded"] as? Int ?? 0) >= 60, "\(result.stdout)")
            #expect(stats?["frameWidth"] as? Int == 320 && stats?["frameHeight"] as? Int == 240, "\(result.stdout)")
            // Firefox painted what it decoded (mozPaintedFrames), not only decoded it.
            let painted = events.compactMap { ($0["viewer"] as? [String: Any])?["painted"] as? Int }.last
            #expect((painted ?? 0) >= 60, "\(result.stdout)")
            // Firefox gives displayed frames no capture time: the latency panel says so rather than
            // showing figures it does not have.
            let viewer = events.compactMap { $0["viewer"] as? [String: Any] }.last
            let latency = viewer?["latency"] as? [String: Any]
            #expect((latency?["framesShown"] as? Int ?? 0) > 0, "\(result.stdout)")
            if latency?["framesWithCaptureTime"] as? Int == 0 {
                #expect(viewer?["latencyNote"] as? String == "this browser gives displayed frames no capture time (requestVideoFrameCallback captureTime)")
            } else {
                #expect(latency?["p50Ms"] as? Double != nil, "\(result.stdout)")
            }
            #expect(events.first { $0["event"] as? String == "stopped" }?["state"] as? String == "closed")
            #expect(secure.bed.server.waitForLine(containing: "viewer 1 left", in: .stderr) != nil, "\(secure.bed.server.output(.stderr))")
            // The screenshot shows the pattern, not a black box.
            let colours = try ImageDecoding.videoColourCount(inScreenshot: screenshot)
            #expect(colours > 100, "the screenshot at \(screenshot) looks blank: \(colours) colours")
        }
    }
}
