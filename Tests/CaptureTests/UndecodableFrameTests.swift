import FakeV4L2
import Foundation
import MediaCore
import Testing
@testable import Capture

/// Frames that arrive but do not decode (corrupt MJPEG): reported once per burst, and fatal
/// when none decodes in the first seconds.
@Suite struct UndecodableFrameTests {
    @Test func aBurstIsReportedOnceWithItsLengthWhenItEnds() {
        var monitor = UndecodableFrameMonitor(startNs: 0, timeoutMs: 1000)
        #expect(monitor.converted() == nil)
        for time in 1...3 { #expect(monitor.failed(nowNs: Int64(time) * 2_000_000_000) == .keepGoing) }
        #expect(monitor.converted() == 3)
        #expect(monitor.converted() == nil, "one report per burst")
        _ = monitor.failed(nowNs: 9_000_000_000)
        #expect(monitor.endBurst() == 1, "a burst still running when capture stops")
        #expect(monitor.endBurst() == nil)
    }

    @Test func nothingDecodedByTheDeadlineFails() {
        var monitor = UndecodableFrameMonitor(startNs: 1_000_000_000, timeoutMs: 500)
        #expect(monitor.failed(nowNs: 1_100_000_000) == .keepGoing)
        #expect(monitor.failed(nowNs: 1_400_000_000) == .keepGoing)
        #expect(monitor.failed(nowNs: 1_500_000_000) == .fail(count: 3))
    }

    @Test func oneDecodedFrameIsEnoughToKeepGoing() {
        var monitor = UndecodableFrameMonitor(startNs: 0, timeoutMs: 500)
        _ = monitor.converted()
        #expect(monitor.failed(nowNs: 10_000_000_000) == .keepGoing)
    }

    @Test func aCameraThatSendsOnlyCorruptFramesFailsWithTheReason() throws {
        let camera = FakeV4L2Device()
        camera.corruptNextFrames(count: .max)
        let (capturer, delegate) = makeCapturer(
            FakeV4L2System(devices: [camera]),
            options: CameraCaptureOptions(stallTimeoutMs: 300, pollIntervalMs: 20, undecodableTimeoutMs: 300))
        let (device, format) = try pick(capturer, .mjpeg, 640, 480)
        #expect(try start(capturer, device: device, format: format, fps: 30) == nil)
        #expect(delegate.wait { !$0.errors.isEmpty })
        capturer.stopCapture()
        let record = delegate.snapshot
        #expect(record.frameCountTotal == 0)
        #expect(!record.drops.isEmpty && record.drops.allSatisfy { $0.reason == .conversionFailed })
        guard case .noDecodableFrames(let path, let format, let count, _)? = record.errors.first as? CameraCaptureError else {
            Issue.record("expected noDecodableFrames, got \(record.errors)")
            return
        }
        #expect(path == "/dev/video0" && format == "MJPG" && count == record.drops.count)
    }

    @Test func aBurstOfCorruptFramesIsDroppedAndTheStreamGoesOn() throws {
        let camera = FakeV4L2Device()
        let (capturer, delegate) = makeCapturer(FakeV4L2System(devices: [camera]))
        let (device, format) = try pick(capturer, .mjpeg, 640, 480)
        camera.corruptNextFrames(count: 4)
        #expect(try start(capturer, device: device, format: format, fps: 30) == nil)
        #expect(delegate.wait { $0.frameCountTotal >= 2 })
        capturer.stopCapture()
        let record = delegate.snapshot
        #expect(record.drops.map(\.reason) == Array(repeating: .conversionFailed, count: 4))
        #expect(record.errors.isEmpty)
    }
}
