import Foundation
import MediaCore
import TestSupport
import Testing

extension EndToEnd {
    /// `serve`'s PATCH on a live session and its viewer page's recovery, with peers we did not
    /// write: an aiortc player keeps playing through trickled candidates and garbage PATCHes, and
    /// headless Chromium's page comes back by itself when its path breaks or the server restarts.
    @Suite(.serialized) struct WHEPNATEndToEndTests {
        typealias Bed = WHEPServeEndToEndTests.Bed

        /// curl in the bed's namespace: the status, and the body's first line.
        static func curl(_ bed: Bed, _ arguments: [String]) throws -> (status: String, body: String) {
            let result = try bed.namespace.start(["/usr/bin/curl", "-s", "-w", "\n%{http_code}"] + arguments).wait(timeout: TestPatience.seconds)
            let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            return (String(lines.last ?? ""), String(lines.first ?? ""))
        }

        static func patch(_ bed: Bed, _ location: String, body: String, headers: [String]) throws -> (status: String, body: String) {
            try curl(bed, ["-X", "PATCH", "--data-binary", body] + headers.flatMap { ["-H", $0] } + [bed.base.dropLast() + location])
        }

        /// RFC 9725 section 4.3 on a real session: a trickled candidate is taken (204), a stale
        /// or missing If-Match, a wrong type and garbage are refused with the RFC's statuses, and
        /// the viewer plays on throughout.
        @Test(.timeLimit(.minutes(3)))
        func patchesOnALiveSessionLeaveTheViewerPlaying() async throws {
            let bed = try Bed()
            defer { bed.stop() }
            let viewer = try bed.viewer(["--frames", "150", "--delete"])
            let post = WHEPServeEndToEndTests.event(viewer.waitForLine(containing: "\"post\"", in: .stdout))
            let location = try #require(post?["location"] as? String, "\(viewer.output(.stdout))")
            let etag = try #require(post?["etag"] as? String)
            #expect(viewer.waitForLine(in: .stdout) { $0.contains("\"frame\"") && $0.contains("\"n\": 10,") } != nil)

            let type = "Content-Type: application/trickle-ice-sdpfrag"
            let trickle = "m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:0\r\na=candidate:9 1 udp 2130706431 192.0.2.9 9999 typ host\r\n"
            #expect(try Self.patch(bed, location, body: trickle, headers: [type, "If-Match: \(etag)"]).status == "204")
            #expect(try Self.patch(bed, location, body: trickle, headers: [type, "If-Match: \"stale\""]).status == "412")
            #expect(try Self.patch(bed, location, body: trickle, headers: [type]).status == "428")
            #expect(try Self.patch(bed, location, body: trickle, headers: ["Content-Type: application/sdp", "If-Match: \(etag)"]).status == "415")
            let garbage = try Self.patch(bed, location, body: "m=video\r\n\u{1}\u{2}garbage", headers: [type, "If-Match: \(etag)"])
            #expect(garbage.status == "400" && garbage.body.hasPrefix("the fragment is malformed: SDP line 1"), "\(garbage)")

            let done = WHEPServeEndToEndTests.event(viewer.waitForLine(containing: "\"done\"", in: .stdout, timeout: TestPatience.seconds))
            #expect(done?["frames"] as? Int == 150, "\(viewer.output(.stdout)) \(bed.server.output(.stderr))")
        }

        /// The page's path breaks (nftables drops all UDP in the namespace until the page says it
        /// is restarting ICE or reconnecting): the page recovers by itself and decodes again.
        @Test(.timeLimit(.minutes(3)))
        func theViewerPageRecoversWhenItsPathBreaks() async throws {
            guard ExternalTool.locate("chromium") != nil else { try Test.cancel("needs chromium (apt-get install chromium)") }
            let bed = try Bed()
            defer { bed.stop() }
            let browser = try bed.namespace.start([
                "/usr/bin/python3", "-u", TestTools.path("chromium_viewer.py"), "--url", bed.base, "--frames", "30", "--wait-recovery",
                "--timeout", "120",
            ])
            defer { browser.interrupt(); _ = browser.wait(timeout: 10) }
            try #require(browser.waitForLine(containing: "\"playing\"", in: .stdout) != nil, "\(browser.output(.stdout)) \(bed.server.output(.stderr))")
            for rule in [
                ["add", "table", "inet", "cut"],
                ["add", "chain", "inet", "cut", "out", "{ type filter hook output priority 0; }"],
                ["add", "rule", "inet", "cut", "out", "meta", "l4proto", "udp", "drop"],
            ] {
                let result = try bed.namespace.start(["/usr/sbin/nft"] + rule).wait(timeout: TestPatience.seconds)
                try #require(result.status == 0, "nft: \(result.stderr)")
            }
            let noticed = browser.waitForLine(in: .stdout) { $0.contains("\"state\"") && ($0.contains("restarting ICE") || $0.contains("reconnecting")) }
            _ = try bed.namespace.start(["/usr/sbin/nft", "delete", "table", "inet", "cut"]).wait(timeout: TestPatience.seconds)
            #expect(noticed != nil, "\(browser.output(.stdout))")
            let recovered = WHEPServeEndToEndTests.event(browser.waitForLine(containing: "\"recovered\"", in: .stdout))
            let viewer = try #require(recovered?["viewer"] as? [String: Any], "\(browser.output(.stdout)) \(bed.server.output(.stderr))")
            print("the page recovered after \(noticed ?? ""): \(viewer["iceRestarts"] ?? 0) ICE restarts, \(viewer["reconnections"] ?? 0) reconnections")
        }

        /// `serve` stops (its viewers get DTLS close_notify) and starts again on the same port:
        /// the page's ICE restart finds no session, so it POSTs a new one after its backoff.
        @Test(.timeLimit(.minutes(3)))
        func theViewerPageReconnectsWhenTheServerRestarts() async throws {
            guard ExternalTool.locate("chromium") != nil else { try Test.cancel("needs chromium (apt-get install chromium)") }
            if let reason = WHEPServeEndToEndTests.unavailableReason { try Test.cancel("WHEP with aiortc: \(reason)") }
            let namespace = try NetworkNamespace(purpose: "whep")
            defer { namespace.remove() }
            let serve = [CamrtpBinary.path, "serve", "--source", "testsrc:320x240@30", "--http", "127.0.0.1:8097", "--local-address", NetworkNamespace.ipv4Address]
            let first = try namespace.start(serve)
            try #require(first.waitForLine(containing: "serving", in: .stderr) != nil, "\(first.output(.stderr))")
            let browser = try namespace.start([
                "/usr/bin/python3", "-u", TestTools.path("chromium_viewer.py"), "--url", "http://127.0.0.1:8097/", "--frames", "30",
                "--wait-recovery", "--timeout", "120",
            ])
            defer { browser.interrupt(); _ = browser.wait(timeout: 10) }
            try #require(browser.waitForLine(containing: "\"playing\"", in: .stdout) != nil, "\(browser.output(.stdout)) \(first.output(.stderr))")
            first.interrupt()
            #expect(first.wait(timeout: TestPatience.seconds).status == 0)
            let second = try namespace.start(serve)
            let recovered = WHEPServeEndToEndTests.event(browser.waitForLine(containing: "\"recovered\"", in: .stdout))
            let viewer = try #require(recovered?["viewer"] as? [String: Any], "\(browser.output(.stdout)) \(second.output(.stderr))")
            #expect((viewer["reconnections"] as? Int ?? 0) >= 1, "\(viewer)")
            // The page plays from the new server: stopping it closes that viewer.
            second.interrupt()
            let result = second.wait(timeout: TestPatience.seconds)
            #expect(result.stderr.contains("viewer 1 left"), "\(result.stderr)")
        }
    }
}
