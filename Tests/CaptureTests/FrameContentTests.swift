import FakeV4L2
import Capture
import Foundation
import FrameProcessing
import MediaCore
import Testing

@Suite("Captured pixels match the source picture")
struct FrameContentTests {
    /// Each format delivered by the fake, with the lowest PSNR its round trip may have: the
    /// 4:2:0 and 4:2:2 YUV formats are lossless, MJPEG is lossy, and RGB goes through a colour
    /// matrix that clips the pattern's most saturated chroma, which lies outside the RGB gamut.
    @Test(arguments: [
        (PixelFormat.i420, 128.0), (.nv12, 128), (.nv21, 128), (.yuyv, 128), (.uyvy, 128), (.mjpeg, 40), (.rgb24, 25), (.bgra, 25),
    ])
    func convertsEveryPixelFormatToTheSourcePicture(format: PixelFormat, minimumPSNR: Double) throws {
        let spec = FakeCameraSpec(pixelFormat: format, width: 640, height: 480, fps: 30)
        let camera = try FakeCamera(spec: spec, options: CameraCaptureOptions(pollIntervalMs: 20))
        let delegate = RecordingDelegate()
        camera.capturer.delegate = delegate
        #expect(try start(camera.capturer, device: camera.device, format: camera.format, fps: camera.fps) == nil)
        #expect(delegate.wait { $0.frames.count >= 3 })
        camera.capturer.stopCapture()
        let frames = delegate.snapshot.frames
        #expect(frames.count >= 3)
        var indexes: [Int] = []
        for frame in frames {
            let index = try #require(TestPatternRenderer.readIndex(from: frame.buffer))
            indexes.append(index)
            let reference = I420Buffer(width: 640, height: 480)
            TestPatternRenderer(width: 640, height: 480).render(index: index, into: reference)
            let psnr = try #require(I420Transform.psnr(frame.buffer, reference))
            #expect(psnr >= minimumPSNR, "\(format) frame \(index): \(psnr) dB")
        }
        // The pattern moves (MJPEG cycles through its four fixture frames).
        #expect(Set(indexes).count > 1)
    }

    /// ISPs pad rows (`bytesperline` > width × bytes per pixel); the padding must be skipped.
    @Test(arguments: [PixelFormat.yuyv, .uyvy, .nv12, .nv21, .i420, .rgb24])
    func skipsRowPadding(format: PixelFormat) throws {
        let padded = FakeV4L2Device(FakeV4L2Configuration(
            formats: [FakeFormat(format, sizes: .discrete([FakeFrameSize(320, 240)]), frameRates: .discrete([30]))],
            rowPaddingPixels: 64))
        let (capturer, delegate) = makeCapturer(FakeV4L2System(devices: [padded]))
        let (device, cameraFormat) = try pick(capturer, format, 320, 240)
        #expect(try start(capturer, device: device, format: cameraFormat, fps: 30) == nil)
        #expect(delegate.wait { $0.frames.count >= 2 })
        capturer.stopCapture()
        for frame in delegate.snapshot.frames {
            let index = try #require(TestPatternRenderer.readIndex(from: frame.buffer))
            let reference = I420Buffer(width: 320, height: 240)
            TestPatternRenderer(width: 320, height: 240).render(index: index, into: reference)
            let psnr = try #require(I420Transform.psnr(frame.buffer, reference))
            #expect(psnr >= (format == .rgb24 ? 25 : 128), "\(format): \(psnr) dB")
        }
    }

    @Test func mirrorsFramesOfTheConfiguredPositions() throws {
        let front = FakeV4L2Device(FakeV4L2Configuration(controls: [FakeControl.orientation(.front)]))
        let (capturer, delegate) = makeCapturer(
            FakeV4L2System(devices: [front]),
            options: CameraCaptureOptions(mirroredPositions: [.front], pollIntervalMs: 20))
        let (device, format) = try pick(capturer, .yuyv, 640, 480)
        #expect(device.position == .front)
        #expect(try start(capturer, device: device, format: format, fps: 30) == nil)
        #expect(delegate.wait { $0.frames.count >= 1 })
        capturer.stopCapture()
        let frame = try #require(delegate.snapshot.frames.first)
        // Mirroring back must give the pattern, whose bar code then reads.
        let unmirrored = I420Buffer(width: 640, height: 480)
        try I420Transform.mirror(frame.buffer, into: unmirrored)
        let index = try #require(TestPatternRenderer.readIndex(from: unmirrored))
        let reference = I420Buffer(width: 640, height: 480)
        TestPatternRenderer(width: 640, height: 480).render(index: index, into: reference)
        #expect(I420Transform.psnr(unmirrored, reference) == 128)
        #expect(I420Transform.psnr(frame.buffer, reference).map { $0 < 30 } == true)
    }
}
