import FakeV4L2
import Adaptation
import CameraRTP
import Capture
import Foundation
import FrameProcessing
import ImageEncoding
import MediaCore
import TestSupport
import Testing
import VP8

extension EndToEnd {
    /// Stills of a live capture: the picture the stream carries, upright, from every pixel format
    /// the fake camera offers; and `camrtp snapshot` as a user runs it.
    @Suite(.serialized) struct SnapshotEndToEndTests {
        /// Streams `source` to memory, takes a snapshot after the first encoded frame, stops, and
        /// returns the snapshot decoded and the VP8 frame with the same capture time decoded and
        /// turned upright as a receiver shows it.
        static func snapshotAndStreamedFrame(
            _ source: CaptureSource, format: ImageFormat, adaptation: VideoSourceOptions = VideoSourceOptions()
        ) async throws -> (snapshot: RGBPicture, streamed: RGBPicture, stats: StatsSnapshot) {
            var encoder = VP8EncoderSettings(bitrateKbps: 2500)
            // Every frame the snapshot could show must be encoded: no encoder drops, and a mailbox
            // that waits (`.fast`) rather than replacing a frame the encoder has not taken yet.
            encoder.dropFrameThreshold = 0
            let collector = CollectingSink()
            let pipeline = try StreamPipeline(
                source: source, configuration: PipelineConfiguration(encoder: encoder, adaptation: adaptation, pace: .fast),
                sink: collector)
            let run = Task { try await pipeline.run() }
            for await event in pipeline.events {
                if case .keyframeSent = event { break }
            }
            let snapshot = try await pipeline.snapshot(format: format)
            pipeline.requestStop()
            let stats = try await run.value

            let decoder = try VP8TestDecoder()
            var streamed: RGBPicture?
            for frame in collector.frames {
                let picture = try decoder.decode(frame.data)
                guard frame.timestampNs == snapshot.timestampNs, let picture else { continue }
                let upright = frame.rotation.swapsDimensions
                    ? I420Buffer(width: picture.height, height: picture.width) : I420Buffer(width: picture.width, height: picture.height)
                try I420Transform.rotate(picture, by: frame.rotation, into: upright)
                streamed = try RGBPicture(converting: upright)
                break
            }
            let decoded = try format == .jpeg ? ImageDecoding.jpeg(snapshot.image.data) : ImageDecoding.png(snapshot.image.data)
            return (decoded, try #require(streamed, "the stream encoded the snapshot's frame"), stats)
        }

        @Test(arguments: [PixelFormat.yuyv, .nv12, .uyvy, .mjpeg])
        func aSnapshotOfTheFakeCameraMatchesTheStreamedFrame(pixelFormat: PixelFormat) async throws {
            let fake = try FakeCamera(spec: FakeCameraSpec(pixelFormat: pixelFormat, width: 640, height: 480, fps: 30))
            let source = try CaptureSource.camera(fake.capturer, device: fake.device, size: (640, 480), fpsLimit: 30)
            let (snapshot, streamed, stats) = try await Self.snapshotAndStreamedFrame(source, format: .jpeg)
            #expect(snapshot.width == 640 && snapshot.height == 480)
            let psnr = try #require(ImageDecoding.psnr(snapshot, streamed))
            #expect(psnr > 30, "\(FourCC.string(pixelFormat.fourcc)): snapshot vs streamed frame \(psnr) dB")
            #expect(stats.framesCaptured == stats.framesEncoded && stats.totalDropped == 0, "the stream lost no frame: \(stats.framesDropped)")
        }

        /// Rotation signalled with CVO (frames stay sideways in the stream) or applied, mirrored or
        /// not: the snapshot is what the receiver shows.
        @Test(arguments: [
            (VideoRotation.deg90, false, false, ImageFormat.jpeg), (.deg90, true, true, .png), (.deg270, false, true, .png),
            (.deg180, true, false, .jpeg),
        ])
        func aSnapshotIsUprightAndMirroredAsTheStreamShowsIt(
            rotation: VideoRotation, applyRotation: Bool, mirror: Bool, format: ImageFormat
        ) async throws {
            let source = CaptureSource.testPattern(width: 640, height: 480, fps: 30, pace: .realtime, rotation: rotation)
            let (snapshot, streamed, stats) = try await Self.snapshotAndStreamedFrame(
                source, format: format, adaptation: VideoSourceOptions(applyRotation: applyRotation, mirror: mirror))
            let (width, height) = rotation.swapsDimensions ? (480, 640) : (640, 480)
            #expect(snapshot.width == width && snapshot.height == height)
            let psnr = try #require(ImageDecoding.psnr(snapshot, streamed))
            #expect(psnr > 30, "rotation \(rotation.degrees)°, applied \(applyRotation), mirror \(mirror): \(psnr) dB")
            #expect(stats.framesCaptured == stats.framesEncoded && stats.totalDropped == 0, "the stream lost no frame: \(stats.framesDropped)")
        }

        // MARK: The command

        @Test(arguments: [("jpg", "mjpeg"), ("png", "png")])
        func theCommandWritesAnImageFFprobeReads(fileExtension: String, codec: String) throws {
            try #require(ExternalTool.locate("ffprobe") != nil, "ffprobe is needed: apt-get install ffmpeg")
            let folder = TemporaryDirectory()
            let path = folder.file("x.\(fileExtension)")
            let result = try CamrtpBinary.run(["snapshot", "--source", "testsrc:640x480", "--out", path])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("camrtp: wrote a 640x480 "))
            let probe = try ExternalTool("ffprobe").run(
                ["-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", path])
            #expect(probe.stdout == "\(codec),640,480\n", "\(probe.stderr)")
        }

        @Test func theCommandTurnsAndScalesLikeTheStream() throws {
            try #require(ExternalTool.locate("ffprobe") != nil, "ffprobe is needed: apt-get install ffmpeg")
            let folder = TemporaryDirectory()
            let path = folder.file("portrait.png")
            let result = try CamrtpBinary.run(
                ["snapshot", "--source", "fake-camera:NV12:640x480@30", "--orientation", "portrait", "--size", "320x240",
                 "--mirror", "--warmup-frames", "3", "--out", path])
            #expect(result.status == 0, "\(result.stderr)")
            let probe = try ExternalTool("ffprobe").run(["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", path])
            #expect(probe.stdout == "240,320\n", "a portrait-held camera gives a portrait picture: \(probe.stdout)")
        }

        @Test func aWarmUpPastTheEndOfAFileSaysSo() throws {
            let folder = TemporaryDirectory()
            let clip = folder.file("clip.y4m")
            try Y4MFile.writeTestPattern(to: clip, width: 64, height: 48, count: 5)
            let result = try CamrtpBinary.run(["snapshot", "--source", "y4m:\(clip)", "--warmup-frames", "5", "--out", folder.file("x.png")])
            #expect(result.status == 2, "exit \(result.status): \(result.stderr)")
            #expect(result.stderr == "camrtp: --source y4m:\(clip) ended before the frame to take; let fewer --warmup-frames pass, or --loop\n")
            let looped = try CamrtpBinary.run(["snapshot", "--source", "y4m:\(clip)", "--loop", "--warmup-frames", "5", "--out", folder.file("x.png")])
            #expect(looped.status == 0, "\(looped.stderr)")
        }

        @Test(arguments: [
            (["--source", "testsrc", "--out", "{dir}/x.gif"],
             "camrtp: --out {dir}/x.gif: unknown image type; name the file with .jpg, .jpeg, .png"),
            (["--source", "testsrc", "--out", "{dir}/missing/x.jpg"],
             "camrtp: --out {dir}/missing/x.jpg: the folder {dir}/missing does not exist"),
            (["--source", "testsrc", "--out", "{dir}/folder.png"],
             "camrtp: --out {dir}/folder.png: is a directory; name a file in it"),
            (["--source", "fake-camera", "--control", "brightness=999", "--out", "{dir}/x.jpg"],
             "camrtp: CameraControlError: 999 is not a valid brightness; valid values are -64...64"),
            (["--source", "fake-camera", "--control", "iris=3", "--out", "{dir}/x.jpg"],
             "camrtp: CameraControlError: 'iris=3' is not NAME=VALUE"),
            (["--source", "testsrc", "--control", "brightness=10", "--out", "{dir}/x.jpg"],
             "camrtp: --orientation, --camera-position and --control are for cameras"),
            (["--source", "testsrc", "--quality", "101", "--out", "{dir}/x.jpg"],
             "camrtp: --quality must be 1...100, not 101"),
            (["--source", "testsrc", "--frames", "3", "--out", "{dir}/x.jpg"],
             "camrtp: --frames, --duration and --pace are for streams"),
            (["--source", "y4m:/nonexistent/clip.y4m", "--out", "{dir}/x.png"],
             "camrtp: /nonexistent/clip.y4m: cannot open: No such file or directory"),
        ])
        func badInputGetsOneLineAndExitCodeTwo(arguments: [String], message: String) throws {
            let folder = TemporaryDirectory()
            try FileManager.default.createDirectory(atPath: folder.file("folder.png"), withIntermediateDirectories: false)
            let result = try CamrtpBinary.run(["snapshot"] + arguments.map { $0.replacingOccurrences(of: "{dir}", with: folder.path) })
            let expected = message.replacingOccurrences(of: "{dir}", with: folder.path)
            #expect(result.status == 2, "exit \(result.status): \(result.stderr)")
            #expect(result.stderr.hasPrefix(expected), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["folder.png"], "nothing written")
        }
    }
}
