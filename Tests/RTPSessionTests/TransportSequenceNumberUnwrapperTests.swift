import Testing
@testable import RTPSession

@Suite struct TransportSequenceNumberUnwrapperTests {
    let unwrapper = TransportSequenceNumberUnwrapper()

    @Test func valuesBeforeTheFirstWrapAreThemselves() {
        #expect(unwrapper.unwrap(0, newestSent: 0) == 0)
        #expect(unwrapper.unwrap(10, newestSent: 20) == 10)
        #expect(unwrapper.unwrap(20, newestSent: 20) == 20)
        // Nothing sent yet (the newest is −1): 0 is the first packet.
        #expect(unwrapper.unwrap(0, newestSent: -1) == 0)
    }

    @Test func acrossTheWrapFrom65535To0() {
        // 65 538 packets sent: the 16-bit numbers ran 65_534, 65_535, 0, 1, 2.
        let newest: Int64 = 65_538
        #expect(unwrapper.unwrap(65_534, newestSent: newest) == 65_534)
        #expect(unwrapper.unwrap(65_535, newestSent: newest) == 65_535)
        #expect(unwrapper.unwrap(0, newestSent: newest) == 65_536)
        #expect(unwrapper.unwrap(2, newestSent: newest) == 65_538)
    }

    @Test func backwardsOverTheWrapAfterManyCycles() {
        // Feedback about packets sent before the last wrap, in the fourth cycle.
        let newest: Int64 = 3 * 65_536 + 100
        #expect(unwrapper.unwrap(65_500, newestSent: newest) == 3 * 65_536 - 36)
        #expect(unwrapper.unwrap(100, newestSent: newest) == newest)
        #expect(unwrapper.unwrap(0, newestSent: newest) == 3 * 65_536)
    }

    @Test func theNearestValueWithinHalfTheRangeWins() {
        let newest: Int64 = 40_000
        // 32_767 behind is behind; 32_768 behind is read as as far ahead.
        #expect(unwrapper.unwrap(7_233, newestSent: newest) == 7_233)
        #expect(unwrapper.unwrap(7_232, newestSent: newest) == 72_768)
    }

    @Test func largeCounts() {
        let newest: Int64 = 1 << 40 | 5
        #expect(unwrapper.unwrap(5, newestSent: newest) == newest)
        #expect(unwrapper.unwrap(65_535, newestSent: newest) == newest - 6)
    }
}
