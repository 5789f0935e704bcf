import FakeV4L2
import Capture
import Foundation
import MediaCore
import TestSupport
import Testing

extension EndToEnd {
    /// The whole V4L2 capture path, against the in-process fake device, decoded by ffmpeg.
    @Suite(.serialized) struct FakeCameraEndToEndTests {
        init() throws {
            try #require(ExternalTool.locate("ffmpeg") != nil, "ffmpeg is needed: apt-get install ffmpeg")
        }

        /// Streams `frames` frames of `source` to ffmpeg; returns what ffmpeg decoded, send's
        /// result and how many frames camrtp encoded. A camera runs in real time, so a busy machine
        /// may drop a frame as late before encoding: what was sent must all decode.
        static func stream(_ source: String, frames: Int) throws -> (decoded: DecodedClip, send: ExternalTool.Result, encoded: Int) {
            let folder = TemporaryDirectory()
            let port = UDPPorts.freePair()
            let sdp = folder.file("s.sdp"), output = folder.file("out.y4m")
            let arguments = ["--source", source, "--to", "127.0.0.1:\(port)"]
            try CamrtpBinary.run(["sdp"] + arguments).stdout.write(toFile: sdp, atomically: true, encoding: .utf8)
            let receiver = try Receivers.ffmpeg(sdp: sdp, output: output)
            #expect(Receivers.waitUntilListening(receiver, port: port))
            let statsPath = folder.file("stats.json")
            let send = try CamrtpBinary.run(["send"] + arguments + ["--frames", "\(frames)", "--bitrate", "2000", "--stats-json", statsPath])
            let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: statsPath))) as? [String: Any]
            let encoded = stats?["framesEncoded"] as? Int ?? -1
            #expect(!receiver.wait(timeout: TestPatience.seconds).timedOut)
            // The fake camera draws the test pattern, numbered from its first frame.
            let width = 640, height = 480
            let renderer = TestPatternRenderer(width: width, height: height)
            let reference = (0..<frames).map { index -> I420Buffer in
                let buffer = I420Buffer(width: width, height: height)
                renderer.render(index: index, into: buffer)
                return buffer
            }
            return (try DecodedClip(path: output, source: reference), send, encoded)
        }

        @Test(arguments: ["YUYV", "NV12", "UYVY"])
        func aFakeCameraStreamsToFFmpeg(fourcc: String) throws {
            let (decoded, send, encoded) = try Self.stream("fake-camera:\(fourcc):640x480@30", frames: 30)
            #expect(send.status == 0, "\(send.stderr)")
            #expect(send.stderr.contains("camrtp fake camera (/dev/video0) \(fourcc) 640x480 @ 30 fps"))
            #expect(encoded > 0 && decoded.count == encoded, "decoded \(decoded.count) of \(encoded) sent")
            #expect(decoded.width == 640 && decoded.height == 480)
            #expect(decoded.psnrs.count == decoded.count, "every frame carries its number: \(decoded.indices)")
            #expect(decoded.minimumPSNR > 30, "PSNR min \(decoded.minimumPSNR)")
        }

        @Test func mjpegFramesFromTheFixtureDecodeAt720p() throws {
            let (decoded, send, encoded) = try Self.stream("fake-camera:MJPG:1280x720@30", frames: 20)
            #expect(send.status == 0, "\(send.stderr)")
            #expect(encoded > 0 && decoded.count == encoded, "decoded \(decoded.count) of \(encoded) sent")
            #expect(decoded.width == 1280 && decoded.height == 720)
        }

        static let machineHasNoVideoNodes =
            !((try? FileManager.default.contentsOfDirectory(atPath: "/dev"))?.contains { $0.hasPrefix("video") } ?? false)

        @Test(.enabled(if: machineHasNoVideoNodes, "the no-camera message needs a machine without /dev/video*"))
        func devicesSaysSoWhenThereIsNoCamera() throws {
            let result = try CamrtpBinary.run(["devices"])
            #expect(result.status == 0)
            #expect(result.stdout == "No cameras found.\n")
        }
    }
}
