import FakeV4L2
@testable import Capture
import Foundation
import MediaCore
import Testing

@Suite("Timestamps and rotation")
struct TimestampAndRotationTests {
    @Test func trustsPlausibleDriverTimestamps() {
        var validator = CaptureTimestampValidator(maxDelayNs: 1_000_000_000)
        #expect(validator.timestamp(driverNs: 1_000, dequeueNs: 2_000) == 1_000)
        #expect(validator.timestamp(driverNs: 34_000, dequeueNs: 40_000) == 34_000)
        #expect(validator.source == .driver)
    }

    @Test(arguments: [
        (Int64(50_000), Int64(40_000), "in the future"), (Int64(500), Int64(40_000), "went backwards"),
        (Int64(3_000), Int64(3_000 + 2_000_000_000), "old at dequeue"), (nil, Int64(40_000), "not on CLOCK_MONOTONIC"),
    ])
    func fallsBackForGoodOnTheFirstBadTimestamp(driverNs: Int64?, dequeueNs: Int64, reason: String) {
        var validator = CaptureTimestampValidator(maxDelayNs: 1_000_000_000)
        #expect(validator.timestamp(driverNs: 1_000, dequeueNs: 2_000) == 1_000)
        #expect(validator.timestamp(driverNs: driverNs, dequeueNs: dequeueNs) == dequeueNs)
        #expect(validator.source == .dequeueTime)
        #expect(validator.fallbackReason?.contains(reason) == true)
        // Good timestamps afterwards are not trusted again.
        #expect(validator.timestamp(driverNs: dequeueNs + 10, dequeueNs: dequeueNs + 20) == dequeueNs + 20)
    }

    @Test(arguments: [FakeTimestampFault.inFuture, .backwards, .stale])
    func capturerSwitchesToDequeueTimeOnABadDriverTimestamp(fault: FakeTimestampFault) throws {
        let camera = FakeV4L2Device()
        let (capturer, delegate) = makeCapturer(FakeV4L2System(devices: [camera]))
        let (device, format) = try pick(capturer, .yuyv, 320, 240)
        #expect(try start(capturer, device: device, format: format, fps: 30) == nil)
        #expect(delegate.wait { $0.frameCountTotal >= 3 })
        #expect(capturer.captureStatus?.timestampSource == .driver)
        camera.corruptNextTimestamp(fault)
        #expect(delegate.wait { _ in capturer.captureStatus?.timestampSource == .dequeueTime })
        let settled = delegate.snapshot.frameCountTotal
        #expect(delegate.wait { $0.frameCountTotal >= settled + 3 })
        capturer.stopCapture()
        let record = delegate.snapshot
        #expect(capturer.captureStatus?.timestampFallbackReason != nil)
        // Output time never runs backwards or jumps into the future, across the switch too.
        #expect(zip(record.timestamps, record.timestamps.dropFirst()).allSatisfy { $0 < $1 })
        #expect(record.timestamps.allSatisfy { $0 <= MonotonicClock.nowNs() })
    }

    @Test func usesDequeueTimeForDriversWithoutMonotonicTimestamps() throws {
        let camera = FakeV4L2Device(FakeV4L2Configuration(monotonicTimestamps: false))
        let (capturer, delegate) = makeCapturer(FakeV4L2System(devices: [camera]))
        let (device, format) = try pick(capturer, .yuyv, 320, 240)
        #expect(try start(capturer, device: device, format: format, fps: 30) == nil)
        #expect(delegate.wait { $0.frameCountTotal >= 2 })
        capturer.stopCapture()
        #expect(capturer.captureStatus?.timestampSource == .dequeueTime)
    }

    /// WebRTC's table, every orientation against every position, from each previous rotation.
    @Test(arguments: DeviceOrientation.allCases, CameraPosition.allCases)
    func rotationTable(orientation: DeviceOrientation, position: CameraPosition) {
        let expected: VideoRotation? = switch (orientation, position) {
        case (.portrait, _): .deg90
        case (.portraitUpsideDown, _): .deg270
        case (.landscapeLeft, .front): .deg180
        case (.landscapeLeft, _): .deg0
        case (.landscapeRight, .front): .deg0
        case (.landscapeRight, _): .deg180
        case (.faceUp, _), (.faceDown, _), (.unknown, _): nil
        }
        for previous in VideoRotation.allCases {
            #expect(CameraRotation.rotation(for: orientation, position: position, previous: previous) == expected ?? previous)
        }
    }

    @Test func framesCarryTheOrientationRotationPlusTheSensorRotation() throws {
        // Back camera, sensor mounted 270° counter-clockwise = 90° clockwise.
        let (capturer, delegate) = makeCapturer(FakeV4L2System(devices: [FakeV4L2Device(.ispCamera(path: "/dev/video0"))]))
        let (device, format) = try pick(capturer, .nv12, 320, 240)
        capturer.deviceOrientation = .portrait
        #expect(try start(capturer, device: device, format: format, fps: 30) == nil)
        #expect(delegate.wait { $0.frameCountTotal >= 2 })
        capturer.deviceOrientation = .landscapeRight
        var marker = delegate.snapshot.frameCountTotal
        #expect(delegate.wait { $0.frameCountTotal >= marker + 2 })
        capturer.deviceOrientation = .faceUp
        marker = delegate.snapshot.frameCountTotal
        #expect(delegate.wait { $0.frameCountTotal >= marker + 2 })
        capturer.stopCapture()
        let rotations = delegate.snapshot.rotations
        #expect(rotations.first == .deg180)
        // landscapeRight on a back camera is 180, plus 90 for the sensor; faceUp keeps it.
        #expect(rotations.last == .deg270)
        #expect(Set(rotations) == [.deg180, .deg270])
    }
}
