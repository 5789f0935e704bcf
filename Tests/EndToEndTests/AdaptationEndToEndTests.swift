import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// The frame adapter seen from a receiver we did not write: rate, size and rotation as ffmpeg
    /// decodes them.
    @Suite(.serialized) struct AdaptationEndToEndTests {
        init() throws {
            try #require(ExternalTool.locate("ffmpeg") != nil, "ffmpeg is needed: apt-get install ffmpeg")
        }

        /// Sends the real-time test pattern with `options` to an ffmpeg receiver; returns its decoded frames.
        static func receive(source: String, options: [String]) throws -> (decoded: DecodedClip, stats: [String: Any]) {
            let folder = TemporaryDirectory()
            let port = UDPPorts.freePair()
            let sdp = folder.file("s.sdp"), output = folder.file("out.y4m"), statsPath = folder.file("stats.json")
            let arguments = ["--source", source, "--to", "127.0.0.1:\(port)"] + options
            let printed = try CamrtpBinary.run(["sdp"] + arguments)
            try printed.stdout.write(toFile: sdp, atomically: true, encoding: .utf8)
            let receiver = try Receivers.ffmpeg(sdp: sdp, output: output)
            #expect(Receivers.waitUntilListening(receiver, port: port))
            let send = try CamrtpBinary.run(["send"] + arguments + ["--stats-json", statsPath])
            #expect(send.status == 0, "\(send.stderr)")
            #expect(!receiver.wait(timeout: TestPatience.seconds).timedOut)
            let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: statsPath))) as? [String: Any] ?? [:]
            return (try DecodedClip(path: output, source: []), stats)
        }

        @Test func fps15FromA30fpsSourceGives15AtTheReceiver() throws {
            let (decoded, stats) = try Self.receive(source: "testsrc:320x240@30", options: ["--fps", "15", "--frames", "90"])
            // 90 frames at 30 fps are 3 s: the limiter keeps 45 ± 1, every other source frame.
            let dropped = stats["framesDropped"] as? [String: Int] ?? [:]
            let kept = 90 - (dropped["fpsCap"] ?? 0)
            #expect((44...46).contains(kept), "the limiter kept \(kept) of 90")
            #expect(stats["framesCaptured"] as? Int == 90)
            // A loaded machine may drop a kept frame as late to the encoder; every other frame
            // the receiver decodes is still two source frames after the one before.
            let droppedUnderLoad = dropped.filter { $0.key != "fpsCap" }.values.reduce(0, +)
            #expect(decoded.count <= kept - droppedUnderLoad && decoded.count * 2 >= kept, "decoded \(decoded.count) of \(kept)")
            let steps = zip(decoded.indices.dropFirst(), decoded.indices).compactMap { pair -> Int? in
                guard let next = pair.0, let previous = pair.1 else { return nil }
                return next - previous
            }
            #expect(steps.allSatisfy { $0 > 0 && $0 % 2 == 0 }, "source frames kept: \(decoded.indices)")
        }

        @Test func size640x360From720pDecodesAt640x360() throws {
            let (decoded, _) = try Self.receive(source: "testsrc:1280x720@30", options: ["--size", "640x360", "--frames", "20"])
            #expect(decoded.count == 20)
            #expect(decoded.width == 640 && decoded.height == 360)
            #expect(decoded.indices == (0..<20).map { $0 }, "the bar code survives the scale")
        }

        @Test func rotation90AppliedDecodesAtTheSwappedSize() throws {
            let (decoded, _) = try Self.receive(
                source: "testsrc:320x240@30", options: ["--rotation", "90", "--apply-rotation", "--frames", "15"])
            #expect(decoded.count == 15)
            #expect(decoded.width == 240 && decoded.height == 320)
        }
    }

    /// Ctrl-C and kill stop a stream cleanly, with the final figures written and the books balanced.
    @Suite struct SignalTests {
        @Test(arguments: [SIGINT, SIGTERM])
        func aStopSignalEndsTheRunCleanly(signal: Int32) throws {
            let folder = TemporaryDirectory()
            let statsPath = folder.file("stats.json")
            let receiver = try LoopbackSocket(ipv6: false)
            let sender = try CamrtpBinary.tool.start([
                "send", "--source", "testsrc:320x240@30", "--to", "\(receiver.endpoint)", "--stats-json", statsPath,
            ])
            // The signal lands in a stream that is running, however long the start took.
            let seen = receiver.waitForFrames(5)
            kill(sender.pid, signal)
            let result = sender.wait(timeout: TestPatience.seconds)
            #expect(!result.timedOut)
            #expect(result.status == 0, "\(result.stderr)")
            let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: statsPath))) as? [String: Any]
            let captured = try #require(stats?["framesCaptured"] as? Int)
            let encoded = try #require(stats?["framesEncoded"] as? Int)
            let dropped = (stats?["framesDropped"] as? [String: Int] ?? [:]).values.reduce(0, +)
            #expect(seen == 5)
            #expect(encoded >= seen)
            #expect(captured == encoded + dropped)
        }
    }
}
