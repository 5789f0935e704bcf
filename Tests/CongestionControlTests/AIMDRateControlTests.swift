import Testing

@testable import CongestionControl

@Suite struct AIMDRateControlTests {
    private let second: Int64 = 1_000_000_000

    @Test func growthFactorIsEightPercentASecond() {
        #expect(abs(AIMDRateControl.growthFactor(seconds: 1) - 1.08) < 1e-12)
        #expect(abs(AIMDRateControl.growthFactor(seconds: 0.5) - 1.08.squareRoot()) < 1e-12)
        #expect(AIMDRateControl.growthFactor(seconds: 0) == 1)
    }

    @Test func increasesMultiplicativelyFarFromCapacity() {
        var control = AIMDRateControl(startBitrateBps: 1_000_000, minBitrateBps: 30_000)
        // Leaving hold: no time has passed, so only the 1 kbit/s floor.
        #expect(control.update(usage: .normal, throughputBps: 1_000_000, nowNs: 0) == 1_001_000)
        #expect(control.state == .increase)
        let rate = control.update(usage: .normal, throughputBps: 1_000_000, nowNs: second)
        #expect(abs(rate - 1_001_000 * 1.08) < 1e-3)
    }

    @Test func neverRunsAheadOfTheThroughput() {
        var control = AIMDRateControl(startBitrateBps: 150_000, minBitrateBps: 30_000)
        control.update(usage: .normal, throughputBps: 100_000, nowNs: 0)
        #expect(control.update(usage: .normal, throughputBps: 100_000, nowNs: 10 * second) == 1.5 * 100_000 + 10_000)
    }

    @Test func decreasesToEightyFivePercentOfTheThroughputThenHolds() {
        var control = AIMDRateControl(startBitrateBps: 1_200_000, minBitrateBps: 30_000)
        #expect(control.update(usage: .overusing, throughputBps: 1_000_000, nowNs: 0) == 850_000)
        #expect(control.state == .hold)
        #expect(control.update(usage: .underusing, throughputBps: 1_000_000, nowNs: second) == 850_000)
    }

    @Test func overuseNeverRaisesTheRate() {
        var control = AIMDRateControl(startBitrateBps: 500_000, minBitrateBps: 30_000)
        #expect(control.update(usage: .overusing, throughputBps: 1_000_000, nowNs: 0) == 500_000)
    }

    @Test func increasesAdditivelyNearTheCapacityItLastOverused() {
        var control = AIMDRateControl(startBitrateBps: 1_200_000, minBitrateBps: 30_000)
        control.update(usage: .overusing, throughputBps: 1_000_000, nowNs: 0)
        control.update(usage: .normal, throughputBps: 850_000, nowNs: second)
        let rate = control.update(usage: .normal, throughputBps: 850_000, nowNs: 2 * second)
        // 850 kbit/s at 30 fps: 3 packets of 1180 bytes a frame; one packet per 2 × (200 + 100) ms.
        let expectedIncreaseBps = (850_000.0 / 8 / 30 / 3 * 8) / 0.6
        #expect(abs(rate - (850_000 + expectedIncreaseBps)) < 1)
    }

    @Test func aSaturatingProbeMakesTheIncreaseAdditive() {
        var control = AIMDRateControl(startBitrateBps: 300_000, minBitrateBps: 30_000)
        control.setEstimate(950_000, nowNs: 0)
        control.onProbeCapacity(1_000_000)
        control.update(usage: .normal, throughputBps: 950_000, nowNs: 0)
        #expect(control.update(usage: .normal, throughputBps: 950_000, nowNs: second) < 950_000 * 1.02)
    }

    @Test func reducesAgainOncePerRoundTripUnlessThroughputCollapsed() {
        var control = AIMDRateControl(startBitrateBps: 1_000_000, minBitrateBps: 30_000)
        control.rttNs = 100_000_000
        control.update(usage: .overusing, throughputBps: 1_000_000, nowNs: 0)
        #expect(!control.isTimeToReduceFurther(nowNs: 50_000_000, throughputBps: 800_000))
        #expect(control.isTimeToReduceFurther(nowNs: 50_000_000, throughputBps: 400_000))
        #expect(control.isTimeToReduceFurther(nowNs: 100_000_000, throughputBps: 800_000))
    }

    @Test func staysAboveTheMinimum() {
        var control = AIMDRateControl(startBitrateBps: 100_000, minBitrateBps: 50_000)
        #expect(control.update(usage: .overusing, throughputBps: 10_000, nowNs: 0) == 50_000)
        control.setEstimate(1000, nowNs: second)
        #expect(control.bitrateBps == 50_000)
    }
}
