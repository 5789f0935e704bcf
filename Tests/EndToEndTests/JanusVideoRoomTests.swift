import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// Simulcast into a real SFU: a publisher sends three VP8 encodings (a quarter, a half and the
    /// full size, each with three temporal layers) through a WHIP bridge into Janus's VideoRoom,
    /// and three aiortc subscribers each ask Janus for one substream and temporal layer: 0/0, 1/1
    /// and 2/2. Each must decode its encoding's size, and the one on temporal layer 0 about a
    /// quarter of the frame rate of the one on layer 2 (counted in RTP time, not wall-clock).
    /// Chromium, a publisher we did not write, proves the bridge and the subscribers; camrtp is
    /// held to the same.
    @Suite(.serialized) struct JanusVideoRoomTests {
        static let room = 1234
        static let framesToMeasure = 40

        @Test(.timeLimit(.minutes(5)))
        func chromiumSimulcastReachesEachSubscriberAtItsLayer() async throws {
            guard ExternalTool.locate("chromium") != nil else { try Test.cancel("needs chromium (apt-get install chromium)") }
            try Self.skipUnlessAvailable()
            let bed = try Bed()
            let publisher = try bed.namespace.start([
                "/usr/bin/python3", TestTools.path("chromium_simulcast_publisher.py"),
                "--whip", bed.whipURL, "--size", "1280x720", "--rids", "q,h,f", "--scalability", "L1T3",
            ])
            defer { Self.stop(publisher) }
            try bed.expectLayers(ofFullSize: (1280, 720)) { publisher.output(.stdout) + publisher.output(.stderr) }
        }

        @Test(.timeLimit(.minutes(5)))
        func camrtpSimulcastReachesEachSubscriberAtItsLayer() async throws {
            try Self.skipUnlessAvailable()
            let bed = try Bed()
            let publisher = try bed.namespace.start([
                CamrtpBinary.path, "publish", "--source", "testsrc:1280x720@30", "--whip", bed.whipURL,
                "--simulcast", "3", "--temporal-layers", "3", "--bitrate", "2500",
            ])
            defer { Self.stop(publisher) }
            try bed.expectLayers(ofFullSize: (1280, 720)) { publisher.output(.stderr) }
            publisher.interrupt()
            let result = publisher.wait(timeout: TestPatience.seconds)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(bed.bridge.waitForLine(containing: "\"delete\"", in: .stdout) != nil, "camrtp ends its session with a DELETE")
        }

        static func skipUnlessAvailable() throws {
            if let reason = JanusServer.videoRoomUnavailableReason {
                try Test.cancel("Janus VideoRoom interop needs Janus, aiortc, aiohttp and root for a network namespace: \(reason)")
            }
        }

        static func stop(_ process: ExternalTool.Running) {
            guard process.isRunning else { return }
            process.interrupt()
            _ = process.wait(timeout: 10)
        }

        /// Janus with the room and the WHIP bridge, in a namespace of their own.
        final class Bed {
            let namespace: NetworkNamespace
            let janus: JanusServer
            let bridge: ExternalTool.Running
            let whipURL: String

            init() throws {
                namespace = try NetworkNamespace(purpose: "videoroom")
                do {
                    janus = try JanusServer(rooms: [JanusServer.VideoRoom(id: JanusVideoRoomTests.room)], in: namespace)
                    let (bridge, port) = try JanusServer.startBridge(in: namespace)
                    self.bridge = bridge
                    whipURL = "http://\(NetworkNamespace.ipv4Address):\(port)/whip/\(JanusVideoRoomTests.room)"
                } catch {
                    namespace.remove()
                    throw error
                }
            }

            deinit {
                JanusVideoRoomTests.stop(bridge)
                janus.stop()
                namespace.remove()
            }

            /// Waits for the publisher to join the room, subscribes to substreams 0, 1 and 2 at
            /// temporal layers 0, 1 and 2, and checks each one's pictures.
            func expectLayers(ofFullSize full: (width: Int, height: Int), publisherLog: () -> String) throws {
                let line = bridge.waitForLine(containing: "\"published\"", in: .stdout)
                let feed = try #require(
                    line.flatMap { VideoRoomEvent.parse($0).first?.feed },
                    "the publisher never joined the room: \(bridge.output(.stdout)) \(bridge.output(.stderr))\n\(publisherLog())")
                let subscribers = try (0..<3).map { layer in
                    try JanusServer.startSubscriber(
                        room: JanusVideoRoomTests.room, feed: feed, substream: layer, temporal: layer,
                        frames: JanusVideoRoomTests.framesToMeasure, in: namespace)
                }
                let results = subscribers.map { $0.wait(timeout: TestPatience.seconds) }
                var rates: [Double] = []
                for (layer, result) in results.enumerated() {
                    let measured = VideoRoomEvent.parse(result.stdout).first { $0.event == "measured" }
                    let scale = 1 << (2 - layer)
                    let expected = [full.width / scale, full.height / scale, JanusVideoRoomTests.framesToMeasure]
                    let context = "substream \(layer): \(result.stdout.suffix(2_000)) \(result.stderr.suffix(1_000))"
                    #expect(result.status == 0, "\(context)\nJanus: \(janus.process.output(.stdout).suffix(3_000))")
                    #expect(measured?.sizes == [expected], "\(context)")
                    #expect(measured?.timestamps == JanusVideoRoomTests.framesToMeasure, "one picture per RTP timestamp: \(context)")
                    if let fps = measured?.fps { rates.append(fps) }
                }
                print("Janus VideoRoom: substreams 0/1/2 at temporal layers 0/1/2 decode at \(rates.map { String(format: "%.1f", $0) }) fps")
                guard rates.count == 3 else { return }
                // Layer 0 is every fourth picture, layer 1 every second: the rates stand about
                // 1 : 2 : 4, whatever the publisher's own rate (which a loaded machine lowers).
                #expect((2.5...6).contains(rates[2] / rates[0]), "temporal 2 vs 0: \(rates)")
                #expect((1.3...3).contains(rates[1] / rates[0]), "temporal 1 vs 0: \(rates)")
            }
        }
    }
}
