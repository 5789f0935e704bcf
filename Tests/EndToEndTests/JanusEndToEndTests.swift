import Capture
import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// camrtp publishes into a real SFU, Janus's streaming plugin, and a WebRTC viewer we did not
    /// write (aiortc) watches through it. With `--keyframe-interval 0` the only keyframe after the
    /// first is the one Janus asks for when the viewer joins, with a PLI (plain RTCP even when the
    /// stream is SRTP: `--accept-plain-rtcp`); so a viewer that decodes proves camrtp heard it.
    @Suite(.serialized) struct JanusEndToEndTests {
        static let framesToDecode = 30

        struct Case: Sendable, CustomTestStringConvertible {
            let srtp: Bool
            var testDescription: String { srtp ? "SRTP with plain feedback" : "plain RTP" }
        }

        @Test(arguments: [Case(srtp: false), Case(srtp: true)])
        func aViewerJoiningLateGetsAKeyframeAndDecodes(_ kind: Case) async throws {
            if let reason = JanusServer.unavailableReason ?? JanusServer.viewerUnavailableReason {
                try Test.cancel("Janus interop needs Janus, aiortc and root for a network namespace: \(reason)")
            }
            let namespace = try NetworkNamespace(purpose: "janus")
            defer { namespace.remove() }
            let folder = TemporaryDirectory()
            let key = kind.srtp ? Data((0..<30).map { UInt8($0 * 11 & 0xFF) }).base64EncodedString() : nil
            // Fixed ports: the namespace is the test's own.
            let mountpoint = JanusServer.Mountpoint(id: 1, videoPort: 5004, videoRTCPPort: 5005, srtpKey: key)
            let janus = try JanusServer(mountpoints: [mountpoint], in: namespace)
            defer { janus.stop() }

            let statsPath = folder.file("stats.json")
            var arguments = [
                CamrtpBinary.path, "send", "--source", "testsrc:320x240@30", "--to", "127.0.0.1:5004", "--local-port", "6000",
                "--keyframe-interval", "0", "--bitrate", "800", "--stats-json", statsPath,
            ]
            if let key { arguments += ["--srtp-key", key, "--accept-plain-rtcp"] }
            let sender = try namespace.start(arguments)
            defer { if sender.isRunning { sender.interrupt(); _ = sender.wait(timeout: 10) } }
            // The first keyframe reaches Janus before anyone watches; the first SR goes with it,
            // which tells Janus where to send its feedback.
            try #require(janus.waitForLog("New video stream!") != nil, "Janus never saw the stream: \(sender.output(.stderr))")

            let output = folder.file("viewer.y4m")
            let viewer = try JanusServer.startViewer(mountpoint: 1, frames: Self.framesToDecode, output: output, in: namespace)
            let finished = viewer.wait(timeout: TestPatience.seconds)
            sender.interrupt()
            let sent = sender.wait(timeout: TestPatience.seconds)
            let log = janus.stop()
            #expect(finished.status == 0, "viewer: \(finished.stdout) \(finished.stderr)\nJanus: \(log.suffix(3_000))")
            #expect(sent.status == 0, "\(sent.stderr)")

            let events = ViewerEvent.parse(finished.stdout)
            let watch = events.first { $0.event == "watch" }, connected = events.first { $0.event == "ice" && $0.state == "completed" }
            let firstFrame = events.first { $0.event == "frame" }
            #expect(events.contains { $0.event == "done" && $0.frames == Self.framesToDecode }, "\(finished.stdout)")
            if let watch, let connected, let firstFrame {
                print(String(
                    format: "Janus (%@): first frame %.0f ms after the viewer's watch request, %.0f ms after ICE completed",
                    kind.testDescription, (firstFrame.t - watch.t) * 1000, (firstFrame.t - connected.t) * 1000))
            }

            // The pictures are the test pattern, in order: decoded, not garbage.
            let (_, frames) = try Y4MFile.readFrames(output)
            let indices = frames.compactMap { TestPatternRenderer.readIndex(from: $0) }
            #expect(frames.count == Self.framesToDecode)
            #expect(indices.count == frames.count && indices == indices.sorted() && Set(indices).count == indices.count, "bar codes \(indices)")

            let stats = try #require(try FeedbackRun.stats(at: statsPath).sender)
            print("Janus (\(kind.testDescription)): RTCP received \(stats.rtcpReceived), keyframes on request \(stats.keyframesOnRequest)")
            #expect(stats.rtcpReceived.pli >= 1, "Janus asks with a PLI when the viewer joins")
            #expect(stats.keyframesOnRequest >= 1)
        }

        /// One line of the viewer's report.
        struct ViewerEvent: Decodable {
            let event: String
            let t: Double
            let state: String?
            let frames: Int?

            static func parse(_ text: String) -> [ViewerEvent] {
                text.split(separator: "\n").compactMap { try? JSONDecoder().decode(ViewerEvent.self, from: Data($0.utf8)) }
            }
        }
    }
}
