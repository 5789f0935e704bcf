import Capture
import Foundation
import FrameProcessing
import MediaCore
import Testing

@Suite("Camera capture on the fake device")
struct CameraCaptureTests {
    @Test func capturesFramesAndReleasesEverythingOnStop() throws {
        let system = FakeV4L2System()
        let (capturer, delegate) = makeCapturer(system)
        let device = try #require(capturer.captureDevices().first)
        let format = try #require(capturer.supportedFormats(for: device).first { $0.pixelFormat == .yuyv && $0.width == 640 })
        #expect(try start(capturer, device: device, format: format, fps: 30) == nil)
        #expect(delegate.wait { $0.frameCountTotal >= 5 }, "\(delegate.snapshot.drops) \(delegate.snapshot.errors) \(system.openFileCount)")
        #expect(system.openFileCount == 1)
        #expect(system.liveMappingCount == 4)
        capturer.stopCapture()
        #expect(system.openFileCount == 0)
        #expect(system.liveMappingCount == 0)
        let frames = delegate.snapshot.frames
        #expect(frames.allSatisfy { $0.width == 640 && $0.height == 480 })
        let timestamps = delegate.snapshot.timestamps
        #expect(zip(timestamps, timestamps.dropFirst()).allSatisfy { $0 < $1 })
        #expect(capturer.captureStatus?.timestampSource == .driver)
    }
}
