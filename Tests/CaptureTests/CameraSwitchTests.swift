import Capture
import FakeV4L2
import Foundation
import MediaCore
import Synchronization
import TestSupport
import Testing

/// Keeps the size, rotation and time of every frame, and no picture.
final class SwitchFrameLog: VideoCapturerDelegate {
    struct Entry: Equatable {
        var width: Int
        var height: Int
        var rotation: VideoRotation
        var timestampNs: Int64
    }

    private let state = Mutex<(frames: [Entry], errors: [String])>(([], []))

    var frames: [Entry] { state.withLock { $0.frames } }
    var errors: [String] { state.withLock { $0.errors } }

    func capturer(_ capturer: any VideoCapturer, didCapture frame: VideoFrame) {
        state.withLock { $0.frames.append(Entry(width: frame.width, height: frame.height, rotation: frame.rotation, timestampNs: frame.timestampNs)) }
    }

    func capturer(_ capturer: any VideoCapturer, didFail error: any Error) {
        state.withLock { $0.errors.append("\(error)") }
    }

    /// Waits, polling the log, until `condition` holds or 10 s pass.
    func wait(until condition: ([Entry]) -> Bool) -> Bool {
        let deadline = TestPatience.deadline
        while Date() < deadline {
            if condition(frames) { return true }
            usleep(5_000)
        }
        return condition(frames)
    }
}

@Suite struct CameraSwitchTests {
    /// A phone's pair: a 640×480 back camera at /dev/video0 and a 320×240 front one at /dev/video1.
    static func phone() throws -> (FakeCamera, SwitchFrameLog) {
        let camera = try FakeCamera(
            specs: FakeCameraSpec.list(parsing: "back=YUYV:640x480@30,front=YUYV:320x240@30"),
            options: CameraCaptureOptions(stallTimeoutMs: 2000, pollIntervalMs: 20))
        let log = SwitchFrameLog()
        camera.capturer.delegate = log
        return (camera, log)
    }

    static func switchCamera(_ camera: FakeCamera, to index: Int) throws -> (any Error)? {
        let device = camera.devices[index]
        let (format, fps) = try camera.capturer.preferredFormat(for: device, width: 640, height: 480, frameRateLimit: 30)
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<(any Error)?>(nil)
        camera.capturer.switchCamera(to: device, format: format, fps: fps) { error in
            outcome.withLock { $0 = error }
            done.signal()
        }
        guard done.wait(timeout: .now() + 10) == .success else { throw TimedOut() }
        return outcome.withLock { $0 }
    }

    @Test func aFakeCameraListNamesPositionsAndFormats() throws {
        #expect(try FakeCameraSpec.list(parsing: nil) == [FakeCameraSpec()])
        #expect(try FakeCameraSpec.list(parsing: "back=MJPG:1280x720@30,front=NV12:320x240,YUYV") == [
            FakeCameraSpec(pixelFormat: .mjpeg, width: 1280, height: 720, fps: 30, position: .back),
            FakeCameraSpec(pixelFormat: .nv12, width: 320, height: 240, position: .front),
            FakeCameraSpec(pixelFormat: .yuyv),
        ])
        #expect { try FakeCameraSpec.list(parsing: "side=YUYV") } throws: { "\($0)".contains("names a position that is not one of front, back, external") }
        #expect { try FakeCameraSpec.list(parsing: "YUYV,") } throws: { "\($0)".contains("'' is not of the form") }
        #expect { try FakeCameraSpec.list(parsing: Array(repeating: "YUYV", count: 9).joined(separator: ",")) } throws: {
            "\($0)".contains("lists 9 cameras; a fake system holds at most 8")
        }
    }

    @Test func theFakePairHasPositionsSizesAndATorchOnTheBack() throws {
        let (camera, _) = try Self.phone()
        #expect(camera.devices.map(\.path) == ["/dev/video0", "/dev/video1"])
        #expect(camera.devices.map(\.position) == [.back, .front])
        #expect(camera.devices.map(\.name) == ["camrtp fake back camera", "camrtp fake front camera"])
        #expect(camera.format.width == 640 && camera.format.height == 480)
        #expect(try camera.capturer.controls(for: camera.devices[0]).contains { $0.control == .flashLEDMode })
        #expect(try !camera.capturer.controls(for: camera.devices[1]).contains { $0.control == .flashLEDMode })
    }

    @Test func aSwitchDeliversTheNewCamerasFramesWithItsSizeAndRotation() throws {
        let (camera, log) = try Self.phone()
        camera.capturer.deviceOrientation = .landscapeLeft
        #expect(try start(camera.capturer, device: camera.device, format: camera.format, fps: camera.fps) == nil)
        #expect(log.wait { $0.count >= 3 })
        #expect(try Self.switchCamera(camera, to: 1) == nil)
        #expect(log.wait { $0.filter { $0.width == 320 }.count >= 3 })
        camera.capturer.stopCapture()

        let frames = log.frames
        let firstFront = try #require(frames.firstIndex { $0.width == 320 })
        // Back frames, then front frames: never one of the old camera after the new one's first.
        #expect(frames[..<firstFront].allSatisfy { $0.width == 640 && $0.height == 480 && $0.rotation == .deg0 })
        #expect(frames[firstFront...].allSatisfy { $0.width == 320 && $0.height == 240 && $0.rotation == .deg180 })
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.timestampNs < $1.timestampNs })
        #expect(log.errors.isEmpty)
        #expect(camera.capturer.captureStatus?.device.path == "/dev/video1")
        #expect(camera.system.openFileCount == 0 && camera.system.liveMappingCount == 0)
    }

    @Test func aBusyCameraFailsTheSwitchAndTheRunningOneGoesOn() throws {
        let (camera, log) = try Self.phone()
        #expect(try start(camera.capturer, device: camera.device, format: camera.format, fps: camera.fps) == nil)
        #expect(log.wait { $0.count >= 2 })
        let busy = try #require(camera.system.device(at: "/dev/video1"))
        busy.failNext(.requestBuffers, with: EBUSY)
        let error = try #require(try Self.switchCamera(camera, to: 1) as? V4L2Error)
        #expect(error.code == EBUSY && error.path == "/dev/video1")
        let before = log.frames.count
        #expect(log.wait { $0.count >= before + 3 })
        camera.capturer.stopCapture()
        #expect(log.frames.allSatisfy { $0.width == 640 })
        #expect(log.errors.isEmpty)
        #expect(camera.capturer.captureStatus?.device.path == "/dev/video0")
        #expect(camera.system.openFileCount == 0)
    }

    @Test func aCameraThatCannotStartAfterTheOldOneWasReleasedTellsTheDelegate() throws {
        let (camera, log) = try Self.phone()
        #expect(try start(camera.capturer, device: camera.device, format: camera.format, fps: camera.fps) == nil)
        #expect(log.wait { !$0.isEmpty })
        try #require(camera.system.device(at: "/dev/video1")).failNext(.streamOn, with: EIO)
        let error = try #require(try Self.switchCamera(camera, to: 1) as? V4L2Error)
        #expect(error.code == EIO)
        // Nothing delivers any more, so the delegate hears of it (a pipeline then stops).
        let deadline = TestPatience.deadline
        while log.errors.isEmpty && Date() < deadline { usleep(5_000) }
        #expect(log.errors.count == 1 && log.errors.first?.contains("VIDIOC_STREAMON on /dev/video1") == true)
        camera.capturer.stopCapture()
        #expect(camera.system.openFileCount == 0 && camera.system.liveMappingCount == 0)
    }

    @Test func aSwitchToTheRunningCameraInItsFormatChangesNothing() throws {
        let (camera, log) = try Self.phone()
        #expect(try start(camera.capturer, device: camera.device, format: camera.format, fps: camera.fps) == nil)
        #expect(log.wait { $0.count >= 2 })
        #expect(try Self.switchCamera(camera, to: 0) == nil)
        let back = try #require(camera.system.device(at: "/dev/video0"))
        #expect(back.streamOnCount == 1)
        camera.capturer.stopCapture()
    }

    @Test func aSwitchWithoutARunningCaptureFails() throws {
        let (camera, _) = try Self.phone()
        let error = try #require(try Self.switchCamera(camera, to: 1) as? CameraCaptureError)
        #expect(error == .notCapturing)
        #expect(camera.system.openFileCount == 0)
    }

    @Test func aStopDuringASwitchLeavesNoCameraOpen() throws {
        let (camera, log) = try Self.phone()
        #expect(try start(camera.capturer, device: camera.device, format: camera.format, fps: camera.fps) == nil)
        #expect(log.wait { !$0.isEmpty })
        let device = camera.devices[1]
        let switched = DispatchSemaphore(value: 0)
        camera.capturer.switchCamera(to: device, format: camera.format, fps: 30) { _ in switched.signal() }
        camera.capturer.stopCapture()
        #expect(switched.wait(timeout: .now() + 10) == .success)
        // Whichever came first, the stop is the last word: nothing streams or stays open.
        camera.capturer.stopCapture()
        #expect(camera.system.openFileCount == 0 && camera.system.liveMappingCount == 0)
        #expect(camera.capturer.captureStatus?.isRunning != true)
    }
}
