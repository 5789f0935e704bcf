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
        let bed = try Bed(["--playout-delay", "0-400"])
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
}
