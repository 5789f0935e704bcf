import Testing
@testable import RTPSession

@Suite struct RetransmissionBudgetTests {
    static let ms: Int64 = 1_000_000

    @Test func allowsTheTargetRateOverHalfASecond() {
        var budget = RetransmissionBudget()
        func take(_ bytes: Int) -> Bool { budget.take(bytes, targetBitrateBps: 800_000, nowNs: 0) }
        // 800 kbit/s for 500 ms: 50 000 bytes.
        let taken = (0..<60).filter { _ in take(1_000) }.count
        #expect(taken == 50)
        #expect(!take(1))
    }

    @Test func theWindowSlidesAndRefills() {
        var budget = RetransmissionBudget()
        func take(_ bytes: Int, atMs timeMs: Int64) -> Bool {
            budget.take(bytes, targetBitrateBps: 800_000, nowNs: timeMs * Self.ms)
        }
        #expect(take(25_000, atMs: 0))
        #expect(take(25_000, atMs: 250))
        #expect(!take(1_000, atMs: 499))
        // The bytes sent at 0 leave the window at 500 ms; those sent at 250 ms stay until 750 ms.
        #expect(take(25_000, atMs: 500))
        #expect(!take(1_000, atMs: 749))
        #expect(take(25_000, atMs: 750))
        // After a quiet window everything is available again.
        #expect(take(50_000, atMs: 2_000))
    }

    @Test func aRefusalIsNotCounted() {
        var budget = RetransmissionBudget()
        func take(_ bytes: Int) -> Bool { budget.take(bytes, targetBitrateBps: 800_000, nowNs: 0) }
        #expect(take(49_500))
        #expect(!take(1_000))
        #expect(take(500))
        #expect(!take(1))
    }

    @Test func followsTheTargetAsItChanges() {
        var budget = RetransmissionBudget()
        func take(_ bytes: Int, targetBitrateBps: Int64) -> Bool {
            budget.take(bytes, targetBitrateBps: targetBitrateBps, nowNs: 100 * Self.ms)
        }
        #expect(take(20_000, targetBitrateBps: 800_000))
        // The target halves: 25 000 bytes per window, 20 000 already spent.
        #expect(!take(6_000, targetBitrateBps: 400_000))
        #expect(take(5_000, targetBitrateBps: 400_000))
    }

    @Test func nothingGoesAtAZeroTarget() {
        var budget = RetransmissionBudget()
        func take(_ bytes: Int) -> Bool { budget.take(bytes, targetBitrateBps: 0, nowNs: 0) }
        #expect(!take(1))
    }
}
