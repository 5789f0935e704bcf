import CameraRTP
import Capture
import FakeV4L2
import Foundation
import MediaCore
import PlainRTP
import RTPSession
import StreamControl
import TestSupport
import RTPSender
import Testing
import Transport
import VP8

/// A pipeline streaming the fake phone's back camera to a `StreamWatcher`, with commands
/// carried out as the control socket would.
struct LiveStream {
    static let phone = "back=YUYV:640x480@30,front=YUYV:320x240@30"
    let camera: FakeCamera
    let watcher: StreamWatcher
    let pipeline: StreamPipeline
    let run: Task<StatsSnapshot, any Error>

    init(orientation: DeviceOrientation = .landscapeLeft) async throws {
        camera = try FakeCamera(specs: FakeCameraSpec.list(parsing: Self.phone))
        camera.capturer.deviceOrientation = orientation
        watcher = try StreamWatcher()
        let source = try CaptureSource.camera(camera.capturer, device: camera.device, size: (640, 480), fpsLimit: 30)
        let sender = try RTPVideoSender(configuration: SessionPlan(
            destination: watcher.socket.endpoint, rtcpDestination: watcher.rtcpSocket.endpoint, fixedSSRC: 0x5EED_CAFE,
            extensions: HeaderExtensionIDs(videoOrientation: StreamWatcher.videoOrientationID)).senderConfiguration())
        // Keyframes only on request, so that every keyframe on the wire has a cause.
        let encoder = VP8EncoderSettings(bitrateKbps: 800, threads: 1, keyframes: .onRequest)
        pipeline = try StreamPipeline(source: source, configuration: PipelineConfiguration(encoder: encoder), sink: sender)
        let pipeline = pipeline
        run = Task { try await pipeline.run() }
    }

    func execute(_ command: StreamCommand) async -> StreamControlReply {
        await StreamCommandExecutor(pipeline: pipeline).execute(command)
    }

    func execute(_ words: String) async throws -> StreamControlReply {
        await execute(try StreamCommand(words: words.split(separator: " ").map(String.init)))
    }

    func finish() async throws -> StatsSnapshot {
        pipeline.requestStop()
        let stats = try await run.value
        watcher.stop()
        return stats
    }
}

/// Prints a figure for the record; tests never assert on time, which depends on the machine.
func measured(_ text: String) {
    print("measured: \(text)")
}

@Suite(.serialized) struct StreamPipelineControlTests {
    @Test func switchingCamerasKeepsOneRTPStreamGoing() async throws {
        let stream = try await LiveStream()
        #expect(await stream.watcher.wait { $0.count >= 10 })
        let toFront = await stream.execute(.switchCamera(.position(.front)))
        #expect(toFront.ok, "\(toFront)")
        #expect(toFront.camera?.path == "/dev/video1" && toFront.camera?.width == 320 && toFront.camera?.position == .front)
        #expect(await stream.watcher.wait { $0.filter { $0.width == 320 }.count >= 10 })
        let toBack = await stream.execute(.switchCamera(.next))
        #expect(toBack.camera?.path == "/dev/video0")
        #expect(await stream.watcher.wait { frames in frames.lastIndex { $0.width == 320 }.map { frames.count - $0 > 10 } ?? false })
        let stats = try await stream.finish()

        let frames = stream.watcher.frames
        #expect(stream.watcher.problems.isEmpty, "no sequence gap, no broken frame: \(stream.watcher.problems)")
        #expect(Set(frames.map(\.ssrc)) == [0x5EED_CAFE])
        #expect(zip(frames, frames.dropFirst()).allSatisfy { Int32(bitPattern: $1.timestamp &- $0.timestamp) > 0 })
        // Sizes run 640×480, 320×240, 640×480, each run opening with a keyframe.
        let runs = frames.indices.filter { $0 == 0 || frames[$0].width != frames[$0 - 1].width }
        #expect(runs.map { frames[$0].width } == [640, 320, 640])
        #expect(runs.allSatisfy { frames[$0].isKeyframe })
        #expect(frames.filter(\.isKeyframe).count == 3, "no keyframe but at the start and at a new size")
        // landscapeLeft: the back camera's column says 0°, the front camera's 180°.
        var rotation: VideoRotation?
        for (index, frame) in frames.enumerated() {
            rotation = frame.rotation ?? rotation
            let expected: VideoRotation = frame.width == 320 ? .deg180 : .deg0
            #expect(rotation == expected, "frame \(index)")
        }
        #expect(stats.framesCaptured == stats.framesEncoded + stats.totalDropped)

        for start in runs.dropFirst() {
            let gapMs = Double(frames[start].receivedNs - frames[start - 1].receivedNs) / 1e6
            let mediaGapMs = Double(frames[start].timestamp &- frames[start - 1].timestamp) / 90
            measured(String(format: "switch to %dx%d: %.1f ms between the last old frame and the first new one on arrival, %.1f ms in RTP time (frame interval 33.3 ms)",
                            frames[start].width, frames[start].height, gapMs, mediaGapMs))
        }
    }

    @Test func aKeyframeFollowsTheRequest() async throws {
        let stream = try await LiveStream()
        #expect(await stream.watcher.wait { $0.count >= 10 })
        for _ in 0..<3 {
            let askedNs = MonotonicClock.nowNs()
            #expect(await stream.execute(.keyframe) == StreamControlReply())
            #expect(await stream.watcher.wait { $0.contains { $0.isKeyframe && $0.receivedNs > askedNs } })
            if let keyframe = stream.watcher.frames.first(where: { $0.isKeyframe && $0.receivedNs > askedNs }) {
                measured(String(format: "keyframe %.1f ms after the request", Double(keyframe.receivedNs - askedNs) / 1e6))
            }
        }
        let stats = try await stream.finish()
        #expect(stats.keyframes == 4)
        #expect(stream.watcher.frames.filter(\.isKeyframe).count == 4)
    }

    @Test func bitrateSetsTheEncodersTargetAndABadOneChangesNothing() async throws {
        let stream = try await LiveStream()
        #expect(await stream.watcher.wait { !$0.isEmpty })
        #expect(await stream.execute(.bitrate(kbps: 300)) == StreamControlReply(targetBitrateKbps: 300))
        #expect(try await stream.execute("stats").status?.targetBitrateKbps == 300)
        #expect(throws: StreamControlError.bitrateOutOfRange(0)) { try stream.pipeline.setTargetBitrate(kbps: 0) }
        #expect(stream.pipeline.targetBitrateKbps == 300)
        let stats = try await stream.execute("stats")
        #expect(stats.ok && stats.stats != nil && stats.status?.camera?.width == 640 && stats.status?.mirror == false)
        _ = try await stream.finish()
    }

    @Test func orientationAndMirrorShowInTheRotationOnTheWire() async throws {
        let stream = try await LiveStream()
        #expect(await stream.watcher.wait { !$0.isEmpty })
        let portraitNs = MonotonicClock.nowNs()
        #expect(try await stream.execute("orientation portrait") == StreamControlReply(orientation: .portrait))
        #expect(await stream.watcher.wait { $0.contains { $0.receivedNs > portraitNs && $0.rotation == .deg90 } })
        // A mirrored picture turns the other way to stand upright.
        let mirrorNs = MonotonicClock.nowNs()
        #expect(try await stream.execute("mirror on") == StreamControlReply(mirror: true))
        #expect(await stream.watcher.wait { $0.contains { $0.receivedNs > mirrorNs && $0.rotation == .deg270 } })
        let status = try await stream.execute("stats").status
        #expect(status?.orientation == .portrait && status?.mirror == true)
        _ = try await stream.finish()
    }

    @Test func controlsReachTheCameraThatStreams() async throws {
        let stream = try await LiveStream()
        #expect(await stream.watcher.wait { !$0.isEmpty })
        let back = try #require(stream.camera.system.device(at: "/dev/video0"))
        #expect(try await stream.execute("control zoom_absolute=200").control == .init(name: "zoom_absolute", value: 200))
        #expect(back.controlValue(CameraControl.zoomAbsolute.id) == 200)
        #expect(try await stream.execute("control torch=on").control == .init(name: "flash_led_mode", value: 2))
        #expect(back.controlValue(CameraControl.flashLEDMode.id) == 2)
        let outOfRange = try await stream.execute("control zoom_absolute=1000")
        #expect(outOfRange.failure == .invalid && outOfRange.error?.contains("valid values are 100...500") == true)
        #expect(back.controlValue(CameraControl.zoomAbsolute.id) == 200)

        #expect(try await stream.execute("switch front").ok)
        let noTorch = try await stream.execute("control torch=on")
        #expect(noTorch.failure == .invalid)
        #expect(noTorch.error == "CameraControlError: /dev/video1 has no flash_led_mode control")
        _ = try await stream.finish()
    }

    @Test func aBusyOrMissingCameraLeavesTheStreamAsItWas() async throws {
        let stream = try await LiveStream()
        #expect(await stream.watcher.wait { !$0.isEmpty })
        try #require(stream.camera.system.device(at: "/dev/video1")).failNext(.requestBuffers, with: EBUSY)
        let busy = try await stream.execute("switch front")
        #expect(busy.failure == .invalid)
        #expect(busy.error?.contains("VIDIOC_REQBUFS on /dev/video1 failed: Device or resource busy (errno 16). Another program is using the camera.") == true)
        let missing = try await stream.execute("switch /dev/video9")
        #expect(missing.failure == .invalid)
        #expect(missing.error == "StreamControlError: there is no camera to switch to for /dev/video9; the cameras are /dev/video0, /dev/video1")
        let count = stream.watcher.frames.count
        #expect(await stream.watcher.wait { $0.count >= count + 5 })
        _ = try await stream.finish()
        #expect(stream.watcher.frames.allSatisfy { $0.width == 640 })
        #expect(stream.watcher.problems.isEmpty)
    }

    @Test func aSnapshotIsWrittenWhileStreaming() async throws {
        let stream = try await LiveStream()
        #expect(await stream.watcher.wait { !$0.isEmpty })
        let folder = TemporaryDirectory()
        let reply = await stream.execute(.snapshot(path: folder.file("still.png")))
        #expect(reply.snapshot?.width == 640 && reply.snapshot?.height == 480)
        let size = try FileManager.default.attributesOfItem(atPath: folder.file("still.png"))[.size] as? Int
        #expect(size == reply.snapshot?.sizeBytes && (size ?? 0) > 0)
        let nowhere = await stream.execute(.snapshot(path: folder.file("missing/still.png")))
        #expect(nowhere.failure == .invalid && nowhere.error?.contains("does not exist") == true)
        _ = try await stream.finish()
    }

    @Test func aTestPatternTakesStreamCommandsButNotCameraOnes() async throws {
        let watcher = try StreamWatcher()
        let source = CaptureSource.testPattern(width: 320, height: 240, fps: 30, pace: .realtime, rotation: .deg0)
        let sender = try RTPVideoSender(
            configuration: SessionPlan(destination: watcher.socket.endpoint, rtcpDestination: watcher.rtcpSocket.endpoint).senderConfiguration())
        let pipeline = try StreamPipeline(source: source, configuration: PipelineConfiguration(), sink: sender)
        let run = Task { try await pipeline.run() }
        #expect(await watcher.wait { !$0.isEmpty })
        let executor = StreamCommandExecutor(pipeline: pipeline)
        let switched = await executor.execute(.switchCamera(.next))
        #expect(switched.failure == .invalid)
        #expect(switched.error == "StreamControlError: switch is for cameras; this stream's source is test pattern 320x240 @ 30 fps")
        #expect(await executor.execute(.orientation(.portrait)).failure == .invalid)
        #expect(await executor.execute(.mirror(true)).ok)
        let status = await executor.execute(.stats).status
        #expect(status?.camera == nil && status?.orientation == nil && status?.targetBitrateKbps == 1500)
        pipeline.requestStop()
        _ = try await run.value
        watcher.stop()
    }
}
