import Foundation
import TestSupport
import Testing

extension EndToEnd.WHEPServeEndToEndTests {
    /// Chromium tells when camrtp's frames were captured: its `requestVideoFrameCallback` gives
    /// displayed frames a `captureTime` (from our sender reports, once our DLRR gave it the RTT),
    /// and it reads our abs-capture-time. Once capture times start, every displayed frame has one;
    /// the viewer page turns them into a glass-to-glass latency that is positive and below a
    /// second (no clock or epoch mixed up). The figures themselves are the benchmark's.
    @Test(.timeLimit(.minutes(3)))
    func chromiumDisplaysCamrtpsFramesWithTheirCaptureTime() async throws {
        guard ExternalTool.locate("chromium") != nil else { try Test.cancel("needs chromium (apt-get install chromium)") }
        let bed = try Bed()
        defer { bed.stop() }
        let screenshot = Self.artifactDirectory + "/whep-viewer-chromium-latency.png"
        try FileManager.default.createDirectory(atPath: Self.artifactDirectory, withIntermediateDirectories: true)
        let result = try bed.namespace.start([
            "/usr/bin/python3", "-u", TestTools.path("chromium_viewer.py"), "--url", bed.base, "--screenshot", screenshot,
            "--frames", "60", "--capture-times", "90",
        ]).wait(timeout: 150)
        #expect(result.status == 0, "\(result.stdout) \(result.stderr) \(bed.server.output(.stderr))")
        let latencies = Self.events(result.stdout).compactMap { ($0["viewer"] as? [String: Any])?["latency"] as? [String: Any] }
        let timed = latencies.filter { ($0["framesWithCaptureTime"] as? Int ?? 0) > 0 }
        let (first, last) = (try #require(timed.first, "\(result.stdout)"), try #require(timed.last))
        func count(_ latency: [String: Any], _ key: String) -> Int { latency[key] as? Int ?? 0 }
        let shown = count(last, "framesShown") - count(first, "framesShown")
        let withCaptureTime = count(last, "framesWithCaptureTime") - count(first, "framesWithCaptureTime")
        #expect(shown >= 60 && withCaptureTime == shown, "\(withCaptureTime) of \(shown) frames with a capture time")

        let median = try #require(last["p50Ms"] as? Double, "\(last)")
        #expect(median > 0 && median < 1_000, "glass to glass \(median) ms")
        let sender = try #require(last["senderCaptureTime"] as? [String: Any], "no abs-capture-time read: \(last)")
        let ntpMs = try #require(sender["ntpMs"] as? Double), receivedUnixMs = try #require(sender["receivedUnixMs"] as? Double)
        let captureToReceiveMs = receivedUnixMs - (ntpMs - 2_208_988_800_000)
        #expect(captureToReceiveMs > 0 && captureToReceiveMs < 1_000, "abs-capture-time \(ntpMs) against arrival \(receivedUnixMs)")
        #expect(sender["offsetMs"] as? Double == 0)
    }

    /// A browser's offer (Chromium 156's, VP8 only, abs-capture-time turned on as the page does)
    /// gets both extensions under its own IDs and receiver reference time reports; serve asks
    /// for 0-400 ms unless told otherwise, and `--playout-delay off` leaves the delay out.
    @Test(.timeLimit(.minutes(2)), arguments: [([], true), (["--playout-delay", "off"], false)])
    func serveAnswersABrowserWithTheLatencyExtensions(_ arguments: [String], asksForDelay: Bool) async throws {
        let bed = try Bed(arguments)
        defer { bed.stop() }
        let offer = [
            "v=0", "o=- 1981821043159441857 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0", "a=extmap-allow-mixed",
            "a=msid-semantic: WMS", "m=video 9 UDP/TLS/RTP/SAVPF 96 97", "c=IN IP4 0.0.0.0", "a=rtcp:9 IN IP4 0.0.0.0",
            "a=ice-ufrag:GfOS", "a=ice-pwd:8gUFuvvksy/ZDoghFT0ThgFm", "a=ice-options:trickle",
            "a=fingerprint:sha-256 BC:08:10:E9:15:2C:A8:0B:53:57:C3:A2:60:26:AB:FB:88:0F:12:37:C5:79:E2:A1:8A:61:E5:AE:22:58:68:21",
            "a=setup:actpass", "a=mid:0",
            "a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
            "a=extmap:4 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
            "a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay",
            "a=extmap:13 http://www.webrtc.org/experiments/rtp-hdrext/abs-capture-time",
            "a=recvonly", "a=rtcp-mux", "a=rtcp-rsize", "a=rtcp-xr:rcvr-rtt=all",
            "a=rtpmap:96 VP8/90000", "a=rtcp-fb:96 transport-cc", "a=rtcp-fb:96 nack", "a=rtcp-fb:96 nack pli",
            "a=rtpmap:97 rtx/90000", "a=fmtp:97 apt=96", "",
        ].joined(separator: "\r\n")
        let result = try bed.namespace.start([
            "/usr/bin/curl", "-s", "-w", "\n%{http_code}", "-X", "POST", "-H", "Content-Type: application/sdp", "--data-binary", offer,
            bed.base + "whep",
        ]).wait(timeout: TestPatience.seconds)
        let lines = result.stdout.replacingOccurrences(of: "\r", with: "").split(separator: "\n").map(String.init)
        #expect(lines.last == "201", "\(result.stdout) \(bed.server.output(.stderr))")
        #expect(lines.contains("a=extmap:13 http://www.webrtc.org/experiments/rtp-hdrext/abs-capture-time"), "\(result.stdout)")
        #expect(lines.contains("a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay") == asksForDelay, "\(result.stdout)")
        #expect(lines.contains("a=rtcp-xr:rcvr-rtt=all"), "\(result.stdout)")
    }
}
