import CameraRTP
import Capture
import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// GStreamer, a receiver we did not write, decodes camrtp's RED (RFC 2198) and ULPFEC (RFC
    /// 5109) as its own WebRTC receiver does (`GStreamerFECReceiver`): the payload types `camrtp
    /// sdp --fec on` announces, media unwrapped from RED, and the packets the network lost
    /// rebuilt by `rtpulpfecdec` from camrtp's FEC packets. The network is the impairment relay:
    /// 5 % random loss (seeded) towards the receiver, 20 ms each way.
    ///
    /// camrtp sends without header extensions here (`--no-transport-cc --no-abs-capture-time`):
    /// GStreamer 1.22's `rtpreddec` rebuilds each packet with a bare header, dropping its
    /// extensions, so FEC over packets that carry them (camrtp's, libwebrtc's) rebuilds garbage
    /// in GStreamer: a frame's first packet carries abs-capture-time about once a second, and a
    /// loss rebuilt from its FEC group came out a frame of 21-29 dB. Chromium keeps them.
    @Suite(.serialized) struct GStreamerFECTests {
        static let judgedFrames = 300
        /// Frames after the judged ones, so the test sees the receiver has output those.
        static let tailFrames = 30
        static let relayOptions = ["--seed", "3", "--forward-delay", "20", "--reverse-delay", "20", "--forward-loss", "0.05"]
        /// A frame decoded from a damaged reference measures 9–18 dB on this clip, a clean one 46–52 dB
        /// (`FeedbackRun.intactFrames`): a packet rebuilt wrong would show far below this.
        static let damagedBelowDB = 30.0

        init() throws {
            try #require(ExternalTool.locate("gst-launch-1.0") != nil, "GStreamer is needed: apt-get install gstreamer1.0-plugins-good")
            let missing = GStreamerFECReceiver.unavailableReason
            try #require(missing == nil, "\(missing ?? "")")
        }

        /// With no retransmission at all, what GStreamer gets back is what FEC rebuilt: it rebuilds
        /// lost packets, and every frame it decodes is the right picture (it decodes nothing after
        /// a loss FEC left until the next keyframe, so a damaged frame is a packet rebuilt wrong).
        @Test func fecAloneRebuildsWhatTheNetworkLost() throws {
            let run = try Self.stream(retransmit: "off", nack: false, waitForKeyframe: true)
            let damaged = run.psnrByIndex.filter { $0.value < Self.damagedBelowDB }
            print("""
                GStreamer FEC alone at 5 % loss: \(run.psnrByIndex.count)/\(Self.judgedFrames) frames decoded, \
                \(run.receiver.fecRecovered) packets rebuilt, \(run.receiver.fecUnrecovered) not, \(run.receiver.redPackets) RED packets; \
                camrtp sent \(run.stats.sender?.fecPacketsSent ?? 0) FEC packets, relay dropped \(run.relay.forward.packets.droppedLoss)
                """)
            #expect(run.relay.forward.packets.droppedLoss > 0, "the relay must have lost packets for this to mean anything")
            #expect((run.stats.sender?.fecPacketsSent ?? 0) > 0)
            #expect(run.receiver.redPackets > 0, "the media came in RED")
            #expect(run.receiver.fecRecovered > 0, "rtpulpfecdec rebuilt nothing")
            #expect(run.psnrByIndex.count >= Self.judgedFrames / 10, "GStreamer decoded \(run.psnrByIndex.count) frames")
            #expect(damaged.isEmpty, "damaged frames (number: dB): \(damaged.sorted { $0.key < $1.key })")
        }

        /// The whole of a WebRTC receiver's repair: NACK answered on RTX, which `rtprtxreceive`
        /// turns back into the media packet before `rtpreddec`, and FEC for what NACK leaves. With
        /// a jitter buffer of 500 ms (as `GStreamerFeedbackTests` has) at least 98 % of the frames arrive
        /// intact.
        @Test func nackOnRTXAndFECTogether() throws {
            let run = try Self.stream(retransmit: "rtx", nack: true)
            let intact = run.psnrByIndex.filter { $0.value >= Self.damagedBelowDB }.count
            let sender = try #require(run.stats.sender)
            print(
                """
                GStreamer NACK + RTX + FEC at 5 % loss: \(intact)/\(Self.judgedFrames) frames intact, \(run.receiver.rtxPackets) RTX packets, \
                \(run.receiver.fecRecovered) packets rebuilt by FEC; camrtp retransmitted \(sender.packetsRetransmitted), \
                sent \(sender.fecPacketsSent) FEC packets
                """)
            #expect(run.receiver.rtxPackets > 0 && sender.packetsRetransmitted > 0)
            #expect(run.receiver.redPackets > 0)
            // A real-time sender on a loaded machine may drop a frame itself; that is not the network's loss.
            #expect((intact + run.stats.totalDropped) * 100 >= Self.judgedFrames * 98, "intact \(intact), \(run.stats.totalDropped) dropped by the sender")
        }

        // MARK: running a stream

        struct Run {
            let psnrByIndex: [Int: Double]
            let stats: StatsSnapshot
            let relay: ImpairmentRelayStats
            let receiver: GStreamerFECReceiver.Figures
        }

        /// RED's, ULPFEC's and RTX's payload types as `camrtp sdp` announces them for these options.
        static func payloadTypes(retransmit: String) throws -> (red: Int, ulpfec: Int, rtx: Int?) {
            let sdp = try CamrtpBinary.run(["sdp", "--to", "127.0.0.1:5004", "--fec", "on", "--retransmit", retransmit]).stdout
            func payloadType(_ encoding: String) -> Int? {
                sdp.split(whereSeparator: \.isNewline).lazy.compactMap { line -> Int? in
                    guard line.hasPrefix("a=rtpmap:"), line.hasSuffix(" \(encoding)/90000") else { return nil }
                    return Int(line.dropFirst("a=rtpmap:".count).prefix { $0.isNumber })
                }.first
            }
            let red = try #require(payloadType("red"), "\(sdp)"), ulpfec = try #require(payloadType("ulpfec"), "\(sdp)")
            return (red, ulpfec, payloadType("rtx"))
        }

        /// A test-pattern clip from camrtp (`--fec on --retransmit retransmit`) through the relay
        /// to the receiver, which NACKs when `nack` is set and waits for a keyframe after a loss
        /// when `waitForKeyframe` is; what it decoded and everyone's figures.
        static func stream(retransmit: String, nack: Bool, waitForKeyframe: Bool = false) throws -> Run {
            let clip = try SourceClip(count: judgedFrames + tailFrames)
            let types = try payloadTypes(retransmit: retransmit)
            let receiverPort = UDPPorts.freePair(), relayPort = UDPPorts.freePair(), localPort = UDPPorts.freePair()
            let relay = try ImpairmentRelay(
                lanes: [.init(listenPort: relayPort, targetPort: receiverPort), .init(listenPort: relayPort + 1, targetPort: receiverPort + 1)],
                options: relayOptions)
            let output = clip.folder.file("gst-fec.y4m"), statsPath = clip.folder.file("stats.json")
            var gstreamer = GStreamerFECReceiver(
                rtpPort: receiverPort, feedbackPort: relay.lanes[1].innerPort, redPayloadType: types.red, ulpfecPayloadType: types.ulpfec,
                output: output)
            gstreamer.rtxPayloadType = types.rtx
            gstreamer.nack = nack
            gstreamer.waitForKeyframe = waitForKeyframe
            gstreamer.latencyMs = nack ? 500 : 200
            let receiver = try gstreamer.start()
            defer { if receiver.isRunning { receiver.interrupt(); _ = receiver.wait(timeout: 10) } }

            let sender = try CamrtpBinary.tool.start([
                "send", "--source", "y4m:\(clip.path)", "--to", "127.0.0.1:\(relayPort)", "--local-port", "\(localPort)",
                "--retransmit", retransmit, "--fec", "on", "--no-transport-cc", "--no-abs-capture-time", "--bitrate", "1000", "--stats-json", statsPath,
            ])
            // Everything before the tail is out once a tail frame is: the jitter buffer releases
            // frames in order. The idle timeout only bounds a receiver that stopped.
            _ = GrowingY4MFile(path: output).waitForFrame { frame, _ in (TestPatternRenderer.readIndex(from: frame) ?? 0) >= judgedFrames }
            let sent = sender.wait(timeout: TestPatience.seconds)
            #expect(sent.status == 0, "\(sent.stderr)")
            receiver.interrupt()
            let received = receiver.wait(timeout: TestPatience.seconds)
            #expect(!received.timedOut && received.status == 0, "the receiver did not stop cleanly: \(received.stdout) \(received.stderr)")
            let relayStats = try relay.stop()
            let decoded = try DecodedClip(path: output, source: clip.frames)
            return Run(
                psnrByIndex: decoded.psnrByIndex(sourceCount: judgedFrames), stats: try FeedbackRun.stats(at: statsPath), relay: relayStats,
                receiver: try GStreamerFECReceiver.finalFigures(received))
        }
    }
}
