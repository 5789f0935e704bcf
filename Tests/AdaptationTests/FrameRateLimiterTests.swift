import TestSupport
import Testing
@testable import Adaptation

/// Timestamps of a camera at `fps` starting at `startNs`, each off its nominal time by up to
/// ± `jitterNs` (uniform).
func cameraTimestamps(fps: Double, count: Int, startNs: Int64 = 5_000_000_000, jitterNs: Int64, seed: UInt64) -> [Int64] {
    var generator = SplitMix64(state: seed)
    return (0..<count).map { index in
        let nominal = startNs + Int64((Double(index) * 1e9 / fps).rounded())
        return nominal + (jitterNs > 0 ? Int64.random(in: -jitterNs...jitterNs, using: &generator) : 0)
    }
}

/// Indices of the frames the limiter keeps.
func keptIndices(_ timestamps: [Int64], limiter: inout FrameRateLimiter) -> [Int] {
    timestamps.indices.filter { !limiter.shouldDropFrame(timestampNs: timestamps[$0]) }
}

@Suite struct FrameRateLimiterTests {
    static let jitterNs: Int64 = 3_000_000

    @Test(arguments: [
        (inputFps: 30.0, cap: 15.0, step: 2),
        (inputFps: 30.0, cap: 10.0, step: 3),
        (inputFps: 60.0, cap: 30.0, step: 2),
        (inputFps: 30.0, cap: 30.0, step: 1),
    ], Array(UInt64(1)...UInt64(8)))
    func keepsEveryNthFrameUnderJitter(grid: (inputFps: Double, cap: Double, step: Int), seed: UInt64) {
        let seconds = 10
        let count = Int(grid.inputFps) * seconds
        let timestamps = cameraTimestamps(fps: grid.inputFps, count: count, jitterNs: Self.jitterNs, seed: seed)
        var limiter = FrameRateLimiter(maxFps: grid.cap)
        let kept = keptIndices(timestamps, limiter: &limiter)
        #expect(kept == Array(stride(from: 0, to: count, by: grid.step)))
        #expect(kept.count == Int(grid.cap) * seconds)
    }

    @Test func holdsANonWholeRatioOnAverage() {
        // 30 → 20 keeps two frames of every three; which two may vary with jitter, the rate may not.
        let timestamps = cameraTimestamps(fps: 30, count: 300, jitterNs: Self.jitterNs, seed: 42)
        var limiter = FrameRateLimiter(maxFps: 20)
        let kept = keptIndices(timestamps, limiter: &limiter)
        #expect((199...201).contains(kept.count))
        for window in stride(from: 0, to: 300, by: 30) {
            let inSecond = kept.filter { (window..<(window + 30)).contains($0) }.count
            #expect((19...21).contains(inSecond), "second starting at frame \(window) kept \(inSecond)")
        }
    }

    @Test func restartsTheGridAfterAPause() {
        // 2 s of 30 fps, a 1 s pause, 2 s more. Without the restart the grid would be a second
        // behind and let every frame through until it caught up.
        let before = cameraTimestamps(fps: 30, count: 60, jitterNs: Self.jitterNs, seed: 7)
        let resumeNs = before.last! + 1_000_000_000
        let after = cameraTimestamps(fps: 30, count: 60, startNs: resumeNs, jitterNs: Self.jitterNs, seed: 8)
        var limiter = FrameRateLimiter(maxFps: 15)
        let keptBefore = keptIndices(before, limiter: &limiter)
        let keptAfter = keptIndices(after, limiter: &limiter)
        #expect(keptBefore == Array(stride(from: 0, to: 60, by: 2)))
        #expect(keptAfter == Array(stride(from: 0, to: 60, by: 2)))
    }

    @Test func restartsTheGridWhenTheClockJumpsBack() {
        var limiter = FrameRateLimiter(maxFps: 15)
        let first = cameraTimestamps(fps: 30, count: 30, startNs: 10_000_000_000, jitterNs: 0, seed: 1)
        let rewound = cameraTimestamps(fps: 30, count: 30, startNs: 1_000_000_000, jitterNs: 0, seed: 1)
        #expect(keptIndices(first, limiter: &limiter).count == 15)
        #expect(keptIndices(rewound, limiter: &limiter) == Array(stride(from: 0, to: 30, by: 2)))
    }

    @Test func changesCapWhileRunning() {
        let timestamps = cameraTimestamps(fps: 30, count: 120, jitterNs: Self.jitterNs, seed: 3)
        var limiter = FrameRateLimiter(maxFps: 30)
        let first = keptIndices(Array(timestamps[0..<30]), limiter: &limiter)
        limiter.setMaxFps(10)
        let second = keptIndices(Array(timestamps[30..<60]), limiter: &limiter)
        limiter.setMaxFps(15)
        let third = keptIndices(Array(timestamps[60..<90]), limiter: &limiter)
        limiter.setMaxFps(nil)
        let fourth = keptIndices(Array(timestamps[90..<120]), limiter: &limiter)
        #expect(first == Array(0..<30))
        #expect(second == Array(stride(from: 0, to: 30, by: 3)))
        #expect(third == Array(stride(from: 0, to: 30, by: 2)))
        #expect(fourth == Array(0..<30))
    }

    @Test(arguments: [0.49, 0.0, -5.0, Double.nan])
    func dropsEverythingBelowHalfAFramePerSecond(cap: Double) {
        let timestamps = cameraTimestamps(fps: 30, count: 300, jitterNs: 0, seed: 1)
        var limiter = FrameRateLimiter(maxFps: cap)
        #expect(keptIndices(timestamps, limiter: &limiter).isEmpty)
    }

    @Test func halfAFramePerSecondIsTheLowestCap() {
        let timestamps = cameraTimestamps(fps: 30, count: 300, jitterNs: Self.jitterNs, seed: 5)
        var limiter = FrameRateLimiter(maxFps: FrameRateLimiter.minimumFps)
        #expect(keptIndices(timestamps, limiter: &limiter) == [0, 60, 120, 180, 240])
    }

    @Test(arguments: [nil, Double.infinity, 1e12])
    func noCapKeepsEverything(cap: Double?) {
        let timestamps = cameraTimestamps(fps: 30, count: 100, jitterNs: Self.jitterNs, seed: 9)
        var limiter = FrameRateLimiter(maxFps: cap)
        #expect(keptIndices(timestamps, limiter: &limiter).count == 100)
    }

    @Test func aSlowerInputThanTheCapKeepsEverything() {
        let timestamps = cameraTimestamps(fps: 10, count: 50, jitterNs: Self.jitterNs, seed: 11)
        var limiter = FrameRateLimiter(maxFps: 30)
        #expect(keptIndices(timestamps, limiter: &limiter).count == 50)
    }
}
