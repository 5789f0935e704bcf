import Foundation
import Glibc
import RTCP
import TestSupport
import Testing

extension EndToEnd {
    /// A receiver gone wrong, and a stranger: 1,000 PLIs a second from the receiver's RTCP
    /// address, and garbage from it and from another host, all at camrtp's feedback port.
    /// The stream goes on, keyframes stay at one per 300 ms at most, and the garbage is counted.
    /// The flood is paced by the stream itself: a burst of 33 PLIs per frame received at 30 fps.
    @Suite struct FeedbackFloodTests {
        static let frames = 150
        static let plisPerFrame = 33
        static let garbagePerFrame = 5
        static let keyframeIntervalMs = 300.0

        @Test func aFloodOfPLIsAndGarbageNeitherStopsTheStreamNorFloodsItWithKeyframes() throws {
            let folder = TemporaryDirectory()
            let port = UDPPorts.freePair(), localPort = UDPPorts.freePair()
            let rtp = try LoopbackSocket(ipv6: false, port: port), rtcp = try LoopbackSocket(ipv6: false, port: port + 1)
            let stranger = try LoopbackSocket(ipv6: false, otherHost: true)
            let ssrc: UInt32 = 0x1234_ABCD
            let statsPath = folder.file("stats.json")
            let sender = try CamrtpBinary.tool.start([
                "send", "--source", "testsrc:320x240@30", "--frames", "\(Self.frames)", "--to", "127.0.0.1:\(port)",
                "--local-port", "\(localPort)", "--ssrc", "\(ssrc)", "--keyframe-interval", "0", "--bitrate", "600",
                "--stats-json", statsPath,
            ])
            defer { if sender.isRunning { sender.interrupt(); _ = sender.wait(timeout: 10) } }

            let pli = RTCPPictureLossIndication(senderSSRC: 0xFEED_F00D, mediaSSRC: ssrc).serialized()
            var random = SplitMix64(state: 2024)
            var depacketizer = VP8Depacketizer()
            var keyframeTimestamps: [UInt32] = []
            var framesReceived = 0, firstTimestamp: UInt32?, lastTimestamp: UInt32 = 0
            var plisSent = 0, garbageFromReceiver = 0, garbageFromStranger = 0, depacketizerErrors = 0
            var byeReceived = false
            func receive(_ packet: [UInt8]) throws {
                let frame: VP8Depacketizer.Frame?
                do {
                    frame = try depacketizer.push(packet)
                } catch {
                    depacketizerErrors += 1
                    depacketizer = VP8Depacketizer()
                    return
                }
                guard let frame else { return }
                framesReceived += 1
                if firstTimestamp == nil { firstTimestamp = frame.timestamp }
                lastTimestamp = frame.timestamp
                if let first = frame.data.first, first & 1 == 0 { keyframeTimestamps.append(frame.timestamp) }
                guard !byeReceived else { return }
                for _ in 0..<Self.plisPerFrame { try rtcp.send(pli, toPort: localPort + 1) }
                plisSent += Self.plisPerFrame
                for _ in 0..<Self.garbagePerFrame {
                    try rtcp.send(Self.garbage(&random), toPort: localPort + 1)
                    try stranger.send(Self.garbage(&random), toPort: localPort + 1)
                }
                garbageFromReceiver += Self.garbagePerFrame
                garbageFromStranger += Self.garbagePerFrame
            }
            // Until the sender says goodbye: each frame that arrives sets off the next burst.
            while !byeReceived {
                let ready = Self.waitForEither(rtp, rtcp, timeoutMilliseconds: 20_000)
                try #require(ready.rtp || ready.rtcp, "the stream stopped: \(sender.output(.stderr))")
                while let packet = rtp.receive(timeoutMilliseconds: 0) { try receive(packet) }
                while let report = rtcp.receive(timeoutMilliseconds: 0) {
                    byeReceived = byeReceived || report.withUnsafeBytes { RTCPCompoundPacket.parseValidPackets($0).packets }
                        .contains { if case .bye = $0 { true } else { false } }
                }
            }
            // The BYE left 50 ms after the last media packet; anything still queued is read.
            while let packet = rtp.receive(timeoutMilliseconds: 0) { try receive(packet) }
            let sent = sender.wait(timeout: TestPatience.seconds)
            #expect(sent.status == 0, "camrtp must survive the flood: \(sent.stderr)")

            let stats = try FeedbackRun.stats(at: statsPath)
            let feedback = try #require(stats.sender)
            let mediaSpanMs = Double(lastTimestamp &- (firstTimestamp ?? lastTimestamp)) / 90
            // The first keyframe is the stream's own; the throttle spaces the requested ones (as
            // libwebrtc's, it times forwarded requests, so the first request may follow it at once).
            let requested = keyframeTimestamps.dropFirst()
            let keyframeGapsMs = zip(requested, requested.dropFirst()).map { Double($1 &- $0) / 90 }
            print(String(
                format: """
                    flood: %d PLIs (%.0f/s) and %d + %d garbage datagrams over %.1f s; %d frames received, %d keyframes \
                    (requested ones at least %.0f ms apart in media time), %d on request; RTCP counted %@
                    """,
                plisSent, Double(plisSent) / max(stats.durationSeconds, 0.001), garbageFromReceiver, garbageFromStranger,
                stats.durationSeconds, framesReceived, keyframeTimestamps.count, keyframeGapsMs.min() ?? 0,
                feedback.keyframesOnRequest, "\(feedback.rtcpReceived)"))

            #expect(framesReceived == stats.framesEncoded && stats.framesEncoded > 0, "every encoded frame arrived")
            #expect(depacketizerErrors == 0)
            #expect(feedback.rtcpReceived.pli > 0 && feedback.keyframesOnRequest >= 2, "the flood was heard")
            // One keyframe per 300 ms at most, counted two ways: the sender's requests over its
            // run, and the keyframes that arrived over the media time they span.
            #expect(Double(feedback.keyframesOnRequest) <= stats.durationSeconds * 1000 / Self.keyframeIntervalMs + 1)
            #expect(Double(requested.count) <= mediaSpanMs / Self.keyframeIntervalMs + 1, "gaps \(keyframeGapsMs)")
            #expect(feedback.rtcpReceived.rejected >= garbageFromReceiver + garbageFromStranger, "every garbage datagram is rejected")
        }

        /// Datagrams that are not valid RTCP, five kinds in turn, each refused as a whole.
        static func garbage(_ random: inout SplitMix64) -> [UInt8] {
            let noise = (0..<100).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            switch random.next() % 5 {
            case 0: return Array(noise.prefix(3))  // shorter than any RTCP header
            case 1: return [0x80, 96] + noise.prefix(18)  // RTP, not RTCP (RFC 5761 §4)
            case 2: return [0x41, 201, 0, 1] + noise.prefix(4)  // version 1
            case 3: return [0x80, 206, 0, 32] + noise.prefix(8)  // a length beyond the datagram
            default: return [noise[0] & 0x3F, 200] + noise.dropFirst(2)  // version 0, noise after it
            }
        }

        /// Which of the two sockets has a datagram, waiting up to the timeout for either.
        static func waitForEither(_ first: LoopbackSocket, _ second: LoopbackSocket, timeoutMilliseconds: Int32) -> (rtp: Bool, rtcp: Bool) {
            var descriptors = [pollfd(fd: first.fd, events: Int16(POLLIN), revents: 0), pollfd(fd: second.fd, events: Int16(POLLIN), revents: 0)]
            guard poll(&descriptors, 2, timeoutMilliseconds) > 0 else { return (false, false) }
            return (descriptors[0].revents & Int16(POLLIN) != 0, descriptors[1].revents & Int16(POLLIN) != 0)
        }
    }
}
