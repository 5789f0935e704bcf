import FakeV4L2
import Capture
import Foundation
import FrameProcessing
import MediaCore
import Synchronization
import TestSupport
import Testing

/// The device and the format of `pixelFormat` at `width × height` from a capturer.
func pick(
    _ capturer: CameraVideoCapturer, path: String? = nil, _ pixelFormat: PixelFormat, _ width: Int, _ height: Int
) throws -> (CameraDevice, CameraFormat) {
    let device = try #require(capturer.captureDevices().first { path == nil || $0.path == path })
    let format = try #require(try capturer.supportedFormats(for: device).first {
        $0.pixelFormat == pixelFormat && $0.width == width && $0.height == height
    })
    return (device, format)
}

@Suite("Camera capture lifecycle on the fake device")
struct CameraCaptureTests {
    @Test func capturesFramesAndReleasesEverythingOnStop() throws {
        let system = FakeV4L2System()
        let (capturer, delegate) = makeCapturer(system)
        let (device, format) = try pick(capturer, .yuyv, 640, 480)
        #expect(try start(capturer, device: device, format: format, fps: 30) == nil)
        #expect(delegate.wait { $0.frameCountTotal >= 5 })
        #expect(system.openFileCount == 1)
        #expect(system.liveMappingCount == 4)
        capturer.stopCapture()
        #expect(system.openFileCount == 0)
        #expect(system.liveMappingCount == 0)
        let record = delegate.snapshot
        #expect(record.frames.allSatisfy { $0.width == 640 && $0.height == 480 })
        #expect(zip(record.timestamps, record.timestamps.dropFirst()).allSatisfy { $0 < $1 })
        #expect(record.errors.isEmpty)
        let status = try #require(capturer.captureStatus)
        #expect(status.timestampSource == .driver)
        #expect(status.frameRate == 30)
        #expect(!status.isRunning)
    }

    @Test func startsAgainAfterStopOnTheSameInstance() throws {
        let system = FakeV4L2System()
        let (capturer, delegate) = makeCapturer(system)
        let (device, format) = try pick(capturer, .mjpeg, 640, 480)
        for round in 1...3 {
            #expect(try start(capturer, device: device, format: format, fps: 30) == nil)
            #expect(delegate.wait { $0.frameCountTotal >= 3 * round })
            capturer.stopCapture()
            #expect(system.openFileCount == 0 && system.liveMappingCount == 0)
        }
        capturer.stopCapture()
        #expect(delegate.snapshot.errors.isEmpty)
    }

    @Test func switchesFormatAndCameraWhileRunningWithoutLeaks() throws {
        let webcam = FakeV4L2Device(FakeV4L2Configuration(path: "/dev/video0"))
        let isp = FakeV4L2Device(.ispCamera(path: "/dev/video1"))
        let system = FakeV4L2System(devices: [webcam, isp])
        let (capturer, delegate) = makeCapturer(system)
        let (device, yuyv) = try pick(capturer, path: "/dev/video0", .yuyv, 640, 480)
        let (_, mjpeg) = try pick(capturer, path: "/dev/video0", .mjpeg, 1280, 720)
        let (ispDevice, nv12) = try pick(capturer, path: "/dev/video1", .nv12, 320, 240)

        #expect(try start(capturer, device: device, format: yuyv, fps: 30) == nil)
        #expect(delegate.wait { $0.frameCountTotal >= 2 })
        #expect(try start(capturer, device: device, format: mjpeg, fps: 30) == nil)
        #expect(webcam.currentFormat.pixelFormat == .mjpeg)
        #expect(system.openFileCount == 1 && system.liveMappingCount == 4)
        let afterFormatSwitch = delegate.snapshot.frameCountTotal
        #expect(delegate.wait { $0.frameCountTotal >= afterFormatSwitch + 3 })

        #expect(try start(capturer, device: ispDevice, format: nv12, fps: 30) == nil)
        #expect(!webcam.isStreaming && webcam.openFileCount == 0 && webcam.liveMappingCount == 0)
        #expect(isp.isStreaming && system.openFileCount == 1 && system.liveMappingCount == 4)
        let afterCameraSwitch = delegate.snapshot.frameCountTotal
        #expect(delegate.wait { $0.frameCountTotal >= afterCameraSwitch + 3 })
        #expect(capturer.captureStatus?.device == ispDevice)
        #expect(capturer.captureStatus?.width == 320)

        capturer.stopCapture()
        #expect(system.openFileCount == 0 && system.liveMappingCount == 0)
        #expect(webcam.allocatedBufferCount == 0 && isp.allocatedBufferCount == 0)
        #expect(delegate.snapshot.errors.isEmpty)
    }

    @Test func offersAsyncStartAndStop() async throws {
        let system = FakeV4L2System()
        let (capturer, delegate) = makeCapturer(system)
        let (device, format) = try pick(capturer, .yuyv, 320, 240)
        try await capturer.startCapture(device: device, format: format, fps: 15)
        #expect(delegate.wait { $0.frameCountTotal >= 2 })
        await capturer.stopCapture()
        #expect(system.openFileCount == 0 && system.liveMappingCount == 0)
    }

    @Test func canBeStoppedFromItsDelegate() throws {
        final class StoppingDelegate: VideoCapturerDelegate {
            let frames = Atomic<Int>(0)
            func capturer(_ capturer: any VideoCapturer, didCapture frame: VideoFrame) {
                frames.add(1, ordering: .relaxed)
                capturer.stopCapture()
            }
        }
        let system = FakeV4L2System()
        let capturer = CameraVideoCapturer(backend: system, options: CameraCaptureOptions(pollIntervalMs: 20))
        let delegate = StoppingDelegate()
        capturer.delegate = delegate
        let (device, format) = try pick(capturer, .yuyv, 320, 240)
        #expect(try start(capturer, device: device, format: format, fps: 30) == nil)
        let deadline = TestPatience.deadline
        while system.openFileCount > 0, Date() < deadline { usleep(10_000) }
        #expect(system.openFileCount == 0 && system.liveMappingCount == 0)
        #expect(delegate.frames.load(ordering: .relaxed) == 1)
        capturer.stopCapture()
    }

    @Test func followsADriverThatAdjustsSizeOrIgnoresTheRate() throws {
        let quirky = FakeV4L2Device(FakeV4L2Configuration(ignoresFrameRate: true, forcedSize: FakeFrameSize(320, 240)))
        let (capturer, delegate) = makeCapturer(FakeV4L2System(devices: [quirky]))
        let (device, format) = try pick(capturer, .yuyv, 640, 480)
        #expect(try start(capturer, device: device, format: format, fps: 5) == nil)
        #expect(delegate.wait { $0.frameCountTotal >= 2 })
        capturer.stopCapture()
        #expect(delegate.snapshot.frames.allSatisfy { $0.width == 320 && $0.height == 240 })
        let status = try #require(capturer.captureStatus)
        #expect(status.width == 320 && status.height == 240)
        #expect(status.frameRate == 30)
    }

    @Test func failsToStartWithAReadableErrorWhenTheCameraIsBusy() throws {
        let camera = FakeV4L2Device()
        let system = FakeV4L2System(devices: [camera])
        let (capturer, _) = makeCapturer(system)
        let (device, format) = try pick(capturer, .yuyv, 640, 480)
        camera.failNext(.setFormat, with: EBUSY)
        let error = try #require(try start(capturer, device: device, format: format, fps: 30) as? V4L2Error)
        #expect(error.description.hasPrefix("V4L2Error: VIDIOC_S_FMT on /dev/video0 failed: Device or resource busy (errno 16)"))
        #expect(system.openFileCount == 0)
        capturer.stopCapture()
    }

    @Test func refusesARateThatIsNoRate() throws {
        let system = FakeV4L2System()
        let (capturer, _) = makeCapturer(system)
        let (device, format) = try pick(capturer, .yuyv, 640, 480)
        for fps in [0, -5, Double.nan, 5000] {
            let error = try start(capturer, device: device, format: format, fps: fps) as? CameraCaptureError
            #expect(error?.description.contains("is not a frame rate") == true)
        }
        capturer.stopCapture()
        #expect(system.openFileCount == 0)
    }

    @Test func tellsTheUserToJoinTheVideoGroupOnEACCES() throws {
        let camera = FakeV4L2Device()
        let system = FakeV4L2System(devices: [camera])
        let (capturer, _) = makeCapturer(system)
        let (device, format) = try pick(capturer, .yuyv, 640, 480)
        camera.failOpens(with: EACCES)
        let error = try #require(try start(capturer, device: device, format: format, fps: 30) as? V4L2Error)
        #expect(error.code == EACCES)
        #expect(error.description.contains("`video` group"))
        #expect(error.description.contains("sudo usermod -aG video $USER"))
        capturer.stopCapture()
    }

    @Test func buildsAFakeCameraFromASpec() throws {
        let camera = try FakeCamera(spec: FakeCameraSpec(parsing: "MJPG:1280x720@15"),
                                    options: CameraCaptureOptions(pollIntervalMs: 20))
        #expect(camera.format.pixelFormat == .mjpeg && camera.format.width == 1280 && camera.fps == 15)
        let delegate = RecordingDelegate()
        camera.capturer.delegate = delegate
        #expect(try start(camera.capturer, device: camera.device, format: camera.format, fps: camera.fps) == nil)
        #expect(delegate.wait { $0.frameCountTotal >= 2 })
        camera.capturer.stopCapture()
        #expect(delegate.snapshot.frames.allSatisfy { $0.width == 1280 && $0.height == 720 })
        #expect(camera.system.openFileCount == 0)
    }

    @Test(arguments: [
        ("YUYV", FakeCameraSpec(pixelFormat: .yuyv)),
        ("NV12:320x240", FakeCameraSpec(pixelFormat: .nv12, width: 320, height: 240)),
        ("MJPG:1280x720@30", FakeCameraSpec(pixelFormat: .mjpeg, width: 1280, height: 720, fps: 30)),
        ("YU12:1920x1080@60", FakeCameraSpec(pixelFormat: .i420, width: 1920, height: 1080, fps: 60)),
        ("MJPG:640x480@30:corrupt=3", {
            var spec = FakeCameraSpec(pixelFormat: .mjpeg, width: 640, height: 480, fps: 30)
            spec.corruptFrames = 3
            return spec
        }()),
        ("MJPG:640x480:corrupt", {
            var spec = FakeCameraSpec(pixelFormat: .mjpeg, width: 640, height: 480, fps: 30)
            spec.corruptFrames = .max
            return spec
        }()),
    ])
    func parsesFakeCameraSpecs(text: String, expected: FakeCameraSpec) throws {
        #expect(try FakeCameraSpec(parsing: text) == expected)
    }

    @Test(arguments: [
        ("H264", "names no pixel format"), ("YUYV:640", "size that is not WxH"), ("YUYV:640x480@fast", "not a whole number"),
        ("YUYV:641x480", "not even"), ("YUYV:640x480@0", "rate outside"), ("MJPG:320x240", "fake MJPEG frames exist at 640x480, 1280x720"),
        ("YUYV:640x480:1", "not of the form"), ("", "not of the form"), ("MJPG:640x480:corrupt=0", "not of the form"),
        ("YUYV:640x480@30:corrupt", "which only MJPEG can have"),
    ])
    func rejectsBadFakeCameraSpecs(text: String, problem: String) {
        #expect {
            try FakeCameraSpec(parsing: text)
        } throws: { error in
            "\(error)".contains(problem) && "\(error)".contains("FOURCC[:WxH[@FPS]]")
        }
    }
}
