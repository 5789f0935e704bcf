import FakeV4L2
import Capture
import Foundation
import MediaCore
import Testing

@Suite("Faults: unplug, drops, interrupted calls, stalls")
struct FaultTests {
    @Test func reportsUnplugAndFreesEverything() throws {
        let camera = FakeV4L2Device()
        let system = FakeV4L2System(devices: [camera])
        let (capturer, delegate) = makeCapturer(system)
        let (device, format) = try pick(capturer, .yuyv, 320, 240)
        #expect(try start(capturer, device: device, format: format, fps: 30) == nil)
        #expect(delegate.wait { $0.frameCountTotal >= 2 })
        system.unplug(path: device.path)
        #expect(delegate.wait { !$0.errors.isEmpty })
        // Everything is freed before the failure is reported.
        #expect(system.openFileCount == 0 && system.liveMappingCount == 0)
        let error = try #require(delegate.snapshot.errors.first as? V4L2Error)
        #expect(error.isDeviceGone)
        #expect(error.description.contains("unplugged"))
        #expect(capturer.captureStatus?.isRunning == false)
        #expect(capturer.captureDevices().isEmpty)
        capturer.stopCapture()
        #expect(delegate.snapshot.errors.count == 1)
    }

    @Test func reportsErrorFlaggedAndShortBuffersAsDrops() throws {
        let camera = FakeV4L2Device()
        let (capturer, delegate) = makeCapturer(FakeV4L2System(devices: [camera]))
        let (device, format) = try pick(capturer, .yuyv, 320, 240)
        #expect(try start(capturer, device: device, format: format, fps: 30) == nil)
        #expect(delegate.wait { $0.frameCountTotal >= 1 })
        camera.flagNextFrames(count: 3)
        camera.shortenNextFrames(count: 2)
        #expect(delegate.wait { $0.drops.count >= 5 })
        let marker = delegate.snapshot.frameCountTotal
        #expect(delegate.wait { $0.frameCountTotal >= marker + 2 })
        capturer.stopCapture()
        let record = delegate.snapshot
        #expect(record.drops.count == 5)
        #expect(record.drops.allSatisfy { $0.reason == .errorBuffer })
        #expect(record.errors.isEmpty)
    }

    @Test func dropsShortMJPEGFramesToo() throws {
        let camera = FakeV4L2Device()
        let (capturer, delegate) = makeCapturer(FakeV4L2System(devices: [camera]))
        let (device, format) = try pick(capturer, .mjpeg, 640, 480)
        #expect(try start(capturer, device: device, format: format, fps: 30) == nil)
        #expect(delegate.wait { $0.frameCountTotal >= 1 })
        camera.shortenNextFrames(count: 2)
        #expect(delegate.wait { $0.drops.count >= 2 })
        capturer.stopCapture()
        #expect(delegate.snapshot.drops.map(\.reason) == [.errorBuffer, .errorBuffer])
    }

    @Test func retriesInterruptedCallsAndWaitsOutEAGAIN() throws {
        let camera = FakeV4L2Device()
        let system = FakeV4L2System(devices: [camera])
        let (capturer, delegate) = makeCapturer(system)
        let (device, format) = try pick(capturer, .yuyv, 320, 240)
        camera.failNext(.setFormat, with: EINTR, times: 2)
        camera.failNext(.requestBuffers, with: EINTR)
        camera.failNext(.streamOn, with: EINTR)
        #expect(try start(capturer, device: device, format: format, fps: 30) == nil)
        camera.failNextPoll(with: EINTR, times: 3)
        camera.failNext(.dequeueBuffer, with: EINTR, times: 3)
        camera.failNext(.dequeueBuffer, with: EAGAIN, times: 3)
        camera.failNext(.queueBuffer, with: EINTR, times: 2)
        #expect(delegate.wait { $0.frameCountTotal >= 5 })
        capturer.stopCapture()
        #expect(delegate.snapshot.errors.isEmpty)
        #expect(delegate.snapshot.drops.isEmpty)
        #expect(system.openFileCount == 0 && system.liveMappingCount == 0)
    }

    @Test func restartsAStalledStreamOnce() throws {
        let camera = FakeV4L2Device()
        let (capturer, delegate) = makeCapturer(FakeV4L2System(devices: [camera]))
        let (device, format) = try pick(capturer, .yuyv, 320, 240)
        #expect(try start(capturer, device: device, format: format, fps: 30) == nil)
        #expect(delegate.wait { $0.frameCountTotal >= 2 })
        camera.stall(untilRestart: true)
        #expect(delegate.wait { _ in camera.streamOnCount == 2 })
        let marker = delegate.snapshot.frameCountTotal
        #expect(delegate.wait { $0.frameCountTotal >= marker + 3 })
        capturer.stopCapture()
        #expect(delegate.snapshot.errors.isEmpty)
    }

    @Test func reportsAStreamThatStaysStalledAfterTheRestart() throws {
        let camera = FakeV4L2Device()
        let system = FakeV4L2System(devices: [camera])
        let (capturer, delegate) = makeCapturer(system)
        let (device, format) = try pick(capturer, .yuyv, 320, 240)
        #expect(try start(capturer, device: device, format: format, fps: 30) == nil)
        #expect(delegate.wait { $0.frameCountTotal >= 2 })
        camera.stall(untilRestart: false)
        #expect(delegate.wait { !$0.errors.isEmpty })
        #expect(camera.streamOnCount == 2)
        let error = try #require(delegate.snapshot.errors.first as? CameraCaptureError)
        #expect(error == .stalled(path: device.path, timeoutMs: 300))
        #expect(system.openFileCount == 0 && system.liveMappingCount == 0)
        capturer.stopCapture()
    }
}
