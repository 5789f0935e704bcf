import Testing

@testable import CongestionControl

@Suite struct CongestionWindowTests {
    @Test func noWindowBeforeFeedback() {
        var window = CongestionWindow()
        window.update(targetBps: 1_000_000)
        #expect(window.windowBytes == nil)
        #expect(window.pushbackTarget(1_000_000, bytesInFlight: 1_000_000) == 1_000_000)
    }

    @Test func windowIsTheTargetOverTheSmallestRTTPlusTheAcceptedQueue() {
        var window = CongestionWindow()
        window.addFeedbackRTT(150_000_000)
        window.addFeedbackRTT(100_000_000)
        window.update(targetBps: 1_000_000)
        #expect(window.windowBytes == 56_250)
        window.update(targetBps: 2_000_000)
        #expect(window.windowBytes == (112_500 + 56_250) / 2)
        #expect(window.meanFeedbackRTTNs == 125_000_000)
    }

    @Test func pushesTheEncoderBackWhileTooMuchIsInFlight() {
        var window = CongestionWindow()
        window.addFeedbackRTT(50_000_000)
        window.update(targetBps: 800_000)  // 40 000 bytes
        #expect(window.pushbackTarget(1_000_000, bytesInFlight: 80_000) == 900_000)
        #expect(abs(window.pushbackTarget(1_000_000, bytesInFlight: 48_000) - 855_000) < 1e-6)
        #expect(abs(window.pushbackTarget(1_000_000, bytesInFlight: 20_000) - 897_750) < 1e-6)
        #expect(window.pushbackTarget(1_000_000, bytesInFlight: 1000) == 1_000_000)
    }

    @Test func pushbackStopsAtThirtyKilobits() {
        var window = CongestionWindow()
        window.addFeedbackRTT(50_000_000)
        window.update(targetBps: 100_000)
        for _ in 0..<100 {
            _ = window.pushbackTarget(100_000, bytesInFlight: 1_000_000)
        }
        #expect(window.pushbackTarget(100_000, bytesInFlight: 1_000_000) == 30_000)
        #expect(window.pushbackTarget(20_000, bytesInFlight: 1_000_000) == 20_000)
    }
}
