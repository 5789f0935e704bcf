import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// The players that read `camrtp sdp`'s session: it now says RTP/AVPF (with rtcp-fb lines),
    /// which is what makes ffmpeg consider feedback at all, and they must still play it.
    @Suite(.serialized) struct FFmpegFeedbackTests {
        @Test func ffplayPlaysTheAVPFSessionHeadless() throws {
            try #require(ExternalTool.locate("ffplay") != nil, "ffplay is needed: apt-get install ffmpeg")
            let clip = try SourceClip()
            let port = UDPPorts.freePair()
            let common = ["--source", "y4m:\(clip.path)", "--to", "127.0.0.1:\(port)", "--bitrate", "800"]
            let printed = try CamrtpBinary.run(["sdp"] + common)
            #expect(printed.stdout.contains("m=video \(port) RTP/AVPF 96\r\n") && printed.stdout.contains("a=rtcp-fb:96 nack pli\r\n"))
            let sdp = clip.folder.file("play.sdp")
            try printed.stdout.write(toFile: sdp, atomically: true, encoding: .utf8)

            let player = try Receivers.ffplay(sdp: sdp)
            defer { if player.isRunning { player.interrupt(); _ = player.wait(timeout: 10) } }
            try #require(Receivers.waitUntilListening(player, port: port), "ffplay did not open the session: \(player.output(.stderr))")
            let send = try CamrtpBinary.run(["send"] + common)
            #expect(send.status == 0, "\(send.stderr)")
            let last = player.waitForLine(in: .stderr, timeout: TestPatience.seconds) { Receivers.showinfoFrameNumber($0) == clip.frames.count - 1 }
            player.interrupt()
            let played = player.wait(timeout: TestPatience.seconds)
            let pictures = played.stderr.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).compactMap { Receivers.showinfoFrameNumber($0) }
            #expect(last != nil, "ffplay decoded \(pictures.count) pictures: \(played.stderr.suffix(2_000))")
            #expect(pictures == Array(0..<clip.frames.count))
        }

        /// ffmpeg 5.1 with `-sdp_flags rtcp_to_source`, the one way it could send RTCP to a sender
        /// it did not negotiate with, behind the relay at 5 % loss. What it sends back is counted.
        /// This ffmpeg reads our sender reports (strace shows the reads) and sends nothing at all:
        /// no RR, no NACK, no PLI, even as it logs the losses. The test pins that; if it fails,
        /// ffmpeg has started to answer, and tests can lean on it.
        @Test func ffmpegWithRTCPToSourceSendsNoFeedback() throws {
            try #require(ExternalTool.locate("ffmpeg") != nil, "ffmpeg is needed: apt-get install ffmpeg")
            let clip = try SourceClip(count: 150)
            let receiverPort = UDPPorts.freePair(), relayPort = UDPPorts.freePair(), localPort = UDPPorts.freePair()
            let relay = try ImpairmentRelay(
                lanes: [.init(listenPort: relayPort, targetPort: receiverPort), .init(listenPort: relayPort + 1, targetPort: receiverPort + 1)],
                options: GStreamerFeedbackTests.relayOptions + ["--forward-loss", "0.05"])
            let sdp = clip.folder.file("ffmpeg.sdp"), output = clip.folder.file("ffmpeg.y4m"), statsPath = clip.folder.file("stats.json")
            let printed = try CamrtpBinary.run(["sdp", "--source", "y4m:\(clip.path)", "--to", "127.0.0.1:\(receiverPort)"])
            try printed.stdout.write(toFile: sdp, atomically: true, encoding: .utf8)
            // The relay may lose the BYE too, so ffmpeg also ends 10 s after the last packet (a
            // first packet has that long to come: the sender starts as soon as ffmpeg listens).
            let receiver = try Receivers.ffmpeg(
                sdp: sdp, output: output, inputOptions: ["-sdp_flags", "rtcp_to_source"], silenceSeconds: 10)
            defer { if receiver.isRunning { receiver.interrupt(); _ = receiver.wait(timeout: 10) } }
            try #require(Receivers.waitUntilListening(receiver, port: receiverPort))
            let send = try CamrtpBinary.run([
                "send", "--source", "y4m:\(clip.path)", "--to", "127.0.0.1:\(relayPort)", "--local-port", "\(localPort)",
                "--bitrate", "1000", "--stats-json", statsPath,
            ])
            let received = receiver.wait(timeout: TestPatience.seconds)
            let relayStats = try relay.stop()
            #expect(send.status == 0, "\(send.stderr)")
            #expect(!received.timedOut)

            let decoded = FileManager.default.fileExists(atPath: output) ? try Y4MFile.readFrames(output).frames.count : 0
            let feedback = try #require(try FeedbackRun.stats(at: statsPath).sender)
            print("""
                ffmpeg -sdp_flags rtcp_to_source at 5 % loss: \(relayStats.forward.packets.droppedLoss) packets lost, \
                \(received.stderr.components(separatedBy: "RTP: missed").count - 1) losses logged, \(decoded)/\(clip.frames.count) \
                frames decoded; \(relayStats.reverse.packets.in) datagrams back; camrtp counted \(feedback.rtcpReceived)
                """)
            #expect(relayStats.forward.packets.droppedLoss > 0 && received.stderr.contains("RTP: missed"), "ffmpeg saw losses it could NACK")
            #expect(decoded > 0)
            #expect(relayStats.reverse.packets.in == 0 && feedback.rtcpReceived == .init(), "ffmpeg sent feedback: \(feedback.rtcpReceived)")
        }
    }
}
