import Capture
import CameraRTP
import Foundation
import Synchronization
import TestSupport
import Testing

extension EndToEnd {
    /// GStreamer's RTP session, a receiver we did not write, asks camrtp to repair what the network
    /// lost, and camrtp answers: NACKs bring the packets again (as they were, or as RTX), a receiver
    /// that joins late asks for a keyframe and gets one. The network is the impairment relay: 5 %
    /// random loss (seeded) towards the receiver and 20 ms each way. The seed's first loss is the
    /// 48th packet, after the first keyframe: with a seed that drops the stream's second packet,
    /// GStreamer now and then gave up the first frames and recovered only through a PLI 18 frames
    /// later, which is the late-join test's subject, not repair.
    ///
    /// The jitter buffer holds 500 ms, not REFERENCES' 200: what a 200 ms buffer keeps depends
    /// on the machine's load as much as on camrtp (GStreamer's repair requests wait for its own
    /// timers), so it is measured by the feedback benchmark on a quiet machine, not asserted here.
    @Suite(.serialized) struct GStreamerFeedbackTests {
        /// 300 frames are judged; the 30 after them let the test see that the receiver has
        /// output everything before them (the jitter buffer releases frames in order).
        static let judgedFrames = 300
        static let tailFrames = 30
        static let relayOptions = ["--seed", "3", "--forward-delay", "20", "--reverse-delay", "20"]
        static let latencyMs = 500

        init() throws {
            try #require(ExternalTool.locate("gst-launch-1.0") != nil, "GStreamer is needed: apt-get install gstreamer1.0-tools gstreamer1.0-plugins-good")
        }

        @Test(arguments: [GStreamerRtpbin.Retransmission.resend, .rtx(payloadType: 97)])
        func nackedLossIsRepaired(_ retransmission: GStreamerRtpbin.Retransmission) throws {
            let clip = try Self.clip()
            let reference = try Self.lossFreePSNR(clip)
            let mode = if case .rtx = retransmission { "rtx" } else { "resend" }
            let run = try Self.streamThroughRelay(clip, receiver: retransmission, retransmit: mode, loss: 0.05)
            let intact = FeedbackRun.intactFrames(run.psnrByIndex, lossFree: reference, range: 0..<Self.judgedFrames)
            let sender = try #require(run.stats.sender)
            print("""
                GStreamer \(retransmission) at 5 % loss, 40 ms RTT: \(intact.count)/\(Self.judgedFrames) frames intact; \
                relay dropped \(run.relay.forward.packets.droppedLoss) of \(run.relay.forward.packets.in) packets; \
                NACKed \(sender.nackedPackets), retransmitted \(sender.packetsRetransmitted), \
                keyframes on request \(sender.keyframesOnRequest), RTT p50 \(sender.rttMs?.p50 ?? -1) ms, \
                target \(sender.targetBitrateKbps.min)–\(sender.targetBitrateKbps.max) kbit/s, receiver loss \(sender.receiverFractionLost ?? -1)
                """)
            // A real-time sender on a loaded machine may drop a frame itself (late to the
            // encoder); those are not the network's losses.
            let droppedBySender = run.stats.totalDropped
            // A packet the receiver gives up on costs every frame until the keyframe it then asks
            // for: a run of frames, where a frame the sender dropped is one. Seen once on a loaded
            // CI machine with every request answered (GStreamer's repair timers wait for a busy
            // core), so one such run is tolerated when camrtp answered every request; a second
            // means repair failed.
            let gaveUp = Self.damagedRuns(intact: intact).filter { $0.count > 1 }
            let everyRequestAnswered = sender.packetsRetransmitted == sender.nackedPackets
            let tolerated = everyRequestAnswered ? gaveUp.first?.count ?? 0 : 0
            let damage = """
                intact \(intact.count), \(droppedBySender) dropped by the sender, \(sender.packetsRetransmitted) of \(sender.nackedPackets) \
                requests answered; not intact: \(Self.describeDamage(run, intact: intact, reference: reference))
                """
            #expect(gaveUp.count <= 1, "\(damage)")
            #expect((intact.count + droppedBySender + tolerated) * 100 >= Self.judgedFrames * 99, "\(damage)")
            #expect(run.relay.forward.packets.droppedLoss > 0, "the relay must have lost packets for this to mean anything")
            #expect(sender.nackedPackets > 0)
            #expect(sender.packetsRetransmitted > 0)
            #expect(sender.rtcpReceived.rr > 0)
            #expect(sender.rtcpReceived.nack > 0)
            let rtt = try #require(sender.rttMs, "receiver reports with LSR give the RTT")
            // The relay holds each packet 20 ms each way: no RTT can be shorter.
            #expect(rtt.p50 >= 39, "RTT p50 \(rtt.p50) ms")
        }

        @Test func withoutRetransmissionFarFewerFramesSurvive() throws {
            let clip = try Self.clip()
            let reference = try Self.lossFreePSNR(clip)
            let run = try Self.streamThroughRelay(clip, receiver: .resend, retransmit: "off", loss: 0.05)
            let intact = FeedbackRun.intactFrames(run.psnrByIndex, lossFree: reference, range: 0..<Self.judgedFrames)
            let sender = try #require(run.stats.sender)
            print("""
                GStreamer, camrtp --retransmit off at 5 % loss: \(intact.count)/\(Self.judgedFrames) frames intact; \
                NACKed \(sender.nackedPackets), retransmitted \(sender.packetsRetransmitted), keyframes on request \(sender.keyframesOnRequest)
                """)
            #expect(sender.nackedPackets > 0, "the receiver still asks")
            #expect(sender.packetsRetransmitted == 0)
            // Measured here: 100–134 of 300 intact. Far worse than the 99 % with retransmission,
            // whatever the machine's speed does to the keyframe requests in between.
            #expect(intact.count * 3 < Self.judgedFrames * 2, "with retransmission at least 99 % are intact; without, \(intact.count)")
        }

        /// With keyframes only on request, a receiver that starts after the stream (and so missed
        /// its only keyframe) decodes nothing until it asks. GStreamer's depayloader asks (PLI)
        /// when the first frame it sees is not a keyframe.
        @Test func aLateReceiverAsksForAKeyframeAndDecodes() throws {
            let folder = TemporaryDirectory()
            let receiverPort = UDPPorts.freePair(), localPort = UDPPorts.freePair()
            let statsPath = folder.file("stats.json"), output = folder.file("late.y4m")
            let early = try LoopbackSocket(ipv6: false, port: receiverPort)
            let sender = try CamrtpBinary.tool.start([
                "send", "--source", "testsrc:320x240@30", "--to", "127.0.0.1:\(receiverPort)", "--local-port", "\(localPort)",
                "--keyframe-interval", "0", "--bitrate", "600", "--stats-json", statsPath,
            ])
            defer { if sender.isRunning { sender.interrupt(); _ = sender.wait(timeout: 10) } }
            // The stream's only unrequested keyframe goes to a socket that just counts frames.
            let framesMissed = early.waitForFrames(15)
            early.close()
            try #require(framesMissed == 15, "the stream did not start: \(sender.output(.stderr))")

            let gstreamer = GStreamerRtpbin(rtpPort: receiverPort, feedbackPort: localPort + 1, output: output)
            let started = ContinuousClock.now
            let receiver = try gstreamer.start()
            defer { if receiver.isRunning { receiver.interrupt(); _ = receiver.wait(timeout: 10) } }
            let listening = ContinuousClock.now
            let file = GrowingY4MFile(path: output)
            let first = try #require(file.nextFrame(), "the late receiver decoded nothing: \(receiver.output(.stderr))")
            let decodedFirst = ContinuousClock.now
            let firstIndex = try #require(TestPatternRenderer.readIndex(from: first))
            let last = try #require(file.waitForFrame { _, position in position == 29 }, "the late receiver stopped decoding")
            sender.interrupt()
            let sent = sender.wait(timeout: TestPatience.seconds)
            receiver.interrupt()
            _ = receiver.wait(timeout: 10)
            #expect(sent.status == 0, "\(sent.stderr)")

            let stats = try FeedbackRun.stats(at: statsPath)
            let feedback = try #require(stats.sender)
            #expect(feedback.keyframesOnRequest >= 1 && feedback.rtcpReceived.pli >= 1, "\(feedback.rtcpReceived)")
            #expect(stats.keyframes >= 2, "the first keyframe and the one asked for")
            #expect(firstIndex >= 15, "the first decoded frame comes after the ones the late receiver missed")
            #expect(TestPatternRenderer.readIndex(from: last) == firstIndex + 29, "30 frames in a row")
            // GStreamer asks when the first frame leaves its jitter buffer, `latencyMs` after it
            // arrived; the keyframe is then due at once (its slot is timed from the first arrival).
            print(String(
                format: """
                    GStreamer late join: first frame %.0f ms after the receiver listened (%.0f ms after gst-launch started); \
                    bound: one RTT + one frame + 100 ms = %.0f ms on loopback, plus the jitter buffer's %d ms = %.0f ms
                    """,
                (decodedFirst - listening).milliseconds, (decodedFirst - started).milliseconds, 1000.0 / 30 + 100,
                gstreamer.latencyMs, 1000.0 / 30 + 100 + Double(gstreamer.latencyMs)))
        }

        /// The builder's transport-cc variant (`extmap-3` in the caps), which congestion-control
        /// tests need: GStreamer then sends transport-wide feedback, and camrtp uses it.
        @Test func theTWCCVariantSendsTransportWideFeedback() throws {
            let folder = TemporaryDirectory()
            let receiverPort = UDPPorts.freePair(), localPort = UDPPorts.freePair()
            let statsPath = folder.file("stats.json"), output = folder.file("twcc.y4m")
            var gstreamer = GStreamerRtpbin(rtpPort: receiverPort, feedbackPort: localPort + 1, output: output)
            gstreamer.twccExtensionID = 3
            let receiver = try gstreamer.start()
            defer { if receiver.isRunning { receiver.interrupt(); _ = receiver.wait(timeout: 10) } }
            let sent = try CamrtpBinary.run([
                "send", "--source", "testsrc:320x240@30", "--frames", "90", "--to", "127.0.0.1:\(receiverPort)",
                "--local-port", "\(localPort)", "--bitrate", "600", "--stats-json", statsPath,
            ])
            #expect(sent.status == 0, "\(sent.stderr)")
            #expect(Y4MFile.waitForFrames(30, in: output, width: 320, height: 240), "GStreamer decodes the stream")
            receiver.interrupt()
            _ = receiver.wait(timeout: 10)
            let stats = try FeedbackRun.stats(at: statsPath)
            let feedback = try #require(stats.sender)
            let decoded = try Y4MFile.readFrames(output).frames.count
            print(String(
                format: """
                    GStreamer with transport-cc: %d feedback packets (%d used); %d/90 frames decoded; pacer queue max %.0f ms, \
                    capture-to-wire latency p50 %.0f ms p99 %.0f ms, target %.0f–%.0f kbit/s, %d NACKed, %d keyframes on request
                    """,
                feedback.rtcpReceived.twcc, feedback.twccFeedbackReceived, decoded, feedback.pacerQueueMs.max, stats.latencyMs.p50,
                stats.latencyMs.p99, feedback.targetBitrateKbps.min, feedback.targetBitrateKbps.max, feedback.nackedPackets,
                feedback.keyframesOnRequest))
            #expect(feedback.rtcpReceived.twcc > 0 && feedback.twccFeedbackReceived > 0, "\(feedback.rtcpReceived)")
        }

        // MARK: running a stream

        struct Run {
            let psnrByIndex: [Int: Double]
            let stats: StatsSnapshot
            let relay: ImpairmentRelayStats
        }

        static func clip() throws -> SourceClip {
            try SourceClip(count: judgedFrames + tailFrames)
        }

        /// Streams `clip` from camrtp (`--retransmit retransmit`) through the relay to GStreamer,
        /// and returns what GStreamer decoded, camrtp's figures and the relay's.
        static func streamThroughRelay(
            _ clip: SourceClip, receiver retransmission: GStreamerRtpbin.Retransmission, retransmit: String, loss: Double
        ) throws -> Run {
            let receiverPort = UDPPorts.freePair(), relayPort = UDPPorts.freePair(), localPort = UDPPorts.freePair()
            let relay = try ImpairmentRelay(
                lanes: [.init(listenPort: relayPort, targetPort: receiverPort), .init(listenPort: relayPort + 1, targetPort: receiverPort + 1)],
                options: relayOptions + ["--forward-loss", "\(loss)"])
            let output = clip.folder.file("gst-\(receiverPort).y4m"), statsPath = clip.folder.file("stats-\(receiverPort).json")
            var gstreamer = GStreamerRtpbin(rtpPort: receiverPort, feedbackPort: relay.lanes[1].innerPort, output: output)
            gstreamer.retransmission = retransmission
            gstreamer.latencyMs = latencyMs
            let receiver = try gstreamer.start()
            defer { if receiver.isRunning { receiver.interrupt(); _ = receiver.wait(timeout: 10) } }

            var arguments = [
                "send", "--source", "y4m:\(clip.path)", "--to", "127.0.0.1:\(relayPort)", "--local-port", "\(localPort)",
                "--retransmit", retransmit, "--bitrate", "1000", "--stats-json", statsPath,
            ]
            if case .rtx(let payloadType) = retransmission { arguments += ["--rtx-payload-type", "\(payloadType)"] }
            let sender = try CamrtpBinary.tool.start(arguments)
            // Everything before the tail is in the file once a tail frame is: the jitter buffer
            // releases frames in order. The idle timeout only bounds a receiver that stopped.
            let file = GrowingY4MFile(path: output)
            _ = file.waitForFrame { frame, _ in (TestPatternRenderer.readIndex(from: frame) ?? 0) >= judgedFrames }
            let sent = sender.wait(timeout: TestPatience.seconds)
            #expect(sent.status == 0, "\(sent.stderr)")
            receiver.interrupt()
            let received = receiver.wait(timeout: TestPatience.seconds)
            #expect(!received.timedOut, "gst-launch did not stop on SIGINT: \(received.stderr)")
            let relayStats = try relay.stop()
            let decoded = try DecodedClip(path: output, source: clip.frames)
            return Run(
                psnrByIndex: decoded.psnrByIndex(sourceCount: clip.frames.count), stats: try FeedbackRun.stats(at: statsPath),
                relay: relayStats)
        }

        /// The runs of consecutive judged frames that are not intact.
        static func damagedRuns(intact: [Int]) -> [Range<Int>] {
            let intact = Set(intact)
            var runs: [Range<Int>] = []
            for index in 0..<judgedFrames where !intact.contains(index) {
                if let last = runs.last, last.upperBound == index {
                    runs[runs.count - 1] = last.lowerBound..<(index + 1)
                } else {
                    runs.append(index..<(index + 1))
                }
            }
            return runs
        }

        /// The frames that are not intact, with their PSNR and the reference's, or "missing".
        static func describeDamage(_ run: Run, intact: [Int], reference: [Int: Double]) -> String {
            let worst = reference.values.min() ?? 0
            return Set(0..<judgedFrames).subtracting(intact).sorted().map { index in
                guard let psnr = run.psnrByIndex[index] else { return "\(index) missing" }
                return String(format: "%d (%.1f dB; loss-free %.1f dB, its worst %.1f dB)", index, psnr, reference[index] ?? 0, worst)
            }.joined(separator: ", ")
        }

        /// The PSNR of each frame through the same relay without loss, measured once per test run.
        static func lossFreePSNR(_ clip: SourceClip) throws -> [Int: Double] {
            if let cached = lossFree.withLock({ $0 }) { return cached }
            let run = try streamThroughRelay(clip, receiver: .resend, retransmit: "resend", loss: 0)
            let judged = run.psnrByIndex.filter { $0.key < judgedFrames }
            print(String(
                format: "GStreamer loss-free reference: %d/%d frames, PSNR min %.1f dB, median %.1f dB", judged.count, judgedFrames,
                judged.values.min() ?? 0, Array(judged.values).median))
            // Every frame the sender encoded, that is: on a loaded machine it may drop one as late.
            try #require(
                judged.count + run.stats.totalDropped >= judgedFrames,
                "the loss-free run must decode every frame it sent: missing \(Set(0..<judgedFrames).subtracting(judged.keys).sorted()), \(run.stats.totalDropped) dropped by the sender")
            lossFree.withLock { $0 = judged }
            return judged
        }

        private static let lossFree = Mutex<[Int: Double]?>(nil)
    }
}
