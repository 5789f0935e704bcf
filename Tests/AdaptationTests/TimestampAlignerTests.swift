import TestSupport
import Testing
@testable import Adaptation

@Suite struct TimestampAlignerTests {
    static let frameIntervalNs: Int64 = 33_333_333

    /// A camera whose clock runs `offsetNs` behind the system clock, with frames reaching us
    /// 5–9 ms after capture.
    struct Camera {
        var generator: SplitMix64
        var offsetNs: Int64
        var captureNs: Int64 = 1_000_000_000

        init(seed: UInt64, offsetNs: Int64) {
            generator = SplitMix64(state: seed)
            self.offsetNs = offsetNs
        }

        /// The next frame's (capture timestamp, system arrival time).
        mutating func nextFrame() -> (captureNs: Int64, systemNs: Int64) {
            captureNs += TimestampAlignerTests.frameIntervalNs
            let delayNs = Int64.random(in: 5_000_000...9_000_000, using: &generator)
            return (captureNs, captureNs + offsetNs + delayNs)
        }
    }

    @Test func convergesToAConstantOffsetAndRemovesDeliveryJitter() {
        var camera = Camera(seed: 1, offsetNs: 7_000_000_000)
        var aligner = TimestampAligner()
        var outputs: [(captureNs: Int64, systemNs: Int64, alignedNs: Int64)] = []
        for _ in 0..<600 {
            let frame = camera.nextFrame()
            outputs.append((frame.captureNs, frame.systemNs, aligner.translate(captureTimestampNs: frame.captureNs, systemTimeNs: frame.systemNs)))
        }
        let settled = outputs.suffix(300)
        // The offset found lies within the delivery delay, and holds still.
        let offsets = settled.map { $0.alignedNs - $0.captureNs - camera.offsetNs }
        #expect(offsets.allSatisfy { (0...9_000_000).contains($0) }, "offsets \(offsets.min()!)...\(offsets.max()!)")
        #expect(offsets.max()! - offsets.min()! < 1_000_000)
        // Arrival times jitter by up to 4 ms; the aligned ones keep the camera's spacing.
        let arrivalSpread = zip(settled.dropFirst(), settled).map { $0.systemNs - $1.systemNs }
        let alignedSpread = zip(settled.dropFirst(), settled).map { $0.alignedNs - $1.alignedNs }
        #expect(arrivalSpread.max()! - arrivalSpread.min()! > 3_000_000)
        #expect(alignedSpread.allSatisfy { abs($0 - Self.frameIntervalNs) < 500_000 })
    }

    @Test func neverOutputsATimeInTheFutureAndAlwaysIncreases() {
        var camera = Camera(seed: 2, offsetNs: -3_000_000_000)
        var aligner = TimestampAligner()
        var previousNs = Int64.min
        for _ in 0..<1000 {
            let frame = camera.nextFrame()
            let alignedNs = aligner.translate(captureTimestampNs: frame.captureNs, systemTimeNs: frame.systemNs)
            #expect(alignedNs <= frame.systemNs)
            #expect(alignedNs >= previousNs + TimestampAligner.minimumIntervalNs)
            previousNs = alignedNs
        }
    }

    @Test func resetsWhenTheCameraClockJumpsMoreThan300Ms() {
        var camera = Camera(seed: 3, offsetNs: 2_000_000_000)
        var aligner = TimestampAligner()
        for _ in 0..<200 {
            let frame = camera.nextFrame()
            _ = aligner.translate(captureTimestampNs: frame.captureNs, systemTimeNs: frame.systemNs)
        }
        // The camera's clock restarts 10 s back; the system clock runs on.
        camera.captureNs -= 10_000_000_000
        camera.offsetNs += 10_000_000_000
        let frame = camera.nextFrame()
        let alignedNs = aligner.translate(captureTimestampNs: frame.captureNs, systemTimeNs: frame.systemNs)
        // Without the reset only 1/100 of the error would be taken in, and the output would
        // be held 1 ms after the previous one, a frame interval behind.
        #expect(alignedNs <= frame.systemNs)
        #expect(frame.systemNs - alignedNs < 10_000_000)
    }

    @Test func aJumpUnderTheThresholdIsAveragedIn() {
        var camera = Camera(seed: 4, offsetNs: 0)
        var aligner = TimestampAligner()
        var lastNs: Int64 = 0
        for _ in 0..<200 {
            let frame = camera.nextFrame()
            lastNs = aligner.translate(captureTimestampNs: frame.captureNs, systemTimeNs: frame.systemNs)
        }
        // 200 ms back: not a reset. The average takes in 1/100 of it, which puts the estimate
        // in the past, so the output is held 1 ms after the previous one.
        camera.captureNs -= 200_000_000
        camera.offsetNs += 200_000_000
        let frame = camera.nextFrame()
        let alignedNs = aligner.translate(captureTimestampNs: frame.captureNs, systemTimeNs: frame.systemNs)
        #expect(alignedNs == lastNs + TimestampAligner.minimumIntervalNs)
    }

    @Test func restoresMonotonicityOverBadCaptureTimestamps() {
        var aligner = TimestampAligner()
        // A driver that repeats and reverses timestamps; frames arrive 33 ms apart.
        let captures: [Int64] = [100, 133, 133, 120, 199, 150, 232].map { $0 * 1_000_000 }
        var previousNs = Int64.min
        for (index, captureNs) in captures.enumerated() {
            let systemNs = 5_000_000_000 + Int64(index) * Self.frameIntervalNs
            let alignedNs = aligner.translate(captureTimestampNs: captureNs, systemTimeNs: systemNs)
            #expect(alignedNs >= previousNs + TimestampAligner.minimumIntervalNs, "frame \(index)")
            #expect(alignedNs <= systemNs)
            previousNs = alignedNs
        }
    }

    @Test func framesArrivingUnderAMillisecondApartStayInThePast() {
        var aligner = TimestampAligner()
        var previousNs = Int64.min
        for index in 0..<10 {
            let systemNs = 1_000_000_000 + Int64(index) * 400_000
            let alignedNs = aligner.translate(captureTimestampNs: Int64(index) * 400_000, systemTimeNs: systemNs)
            #expect(alignedNs <= systemNs)
            #expect(alignedNs >= previousNs)
            previousNs = alignedNs
        }
    }
}
