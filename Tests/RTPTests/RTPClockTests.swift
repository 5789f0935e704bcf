import TestSupport
import Testing
@testable import RTP

@Suite struct RTPClockTests {
    @Test(arguments: [
        (0, 0),
        (1_000_000_000, 90_000),
        // 90 kHz ticks every 11111.1… ns: exact truncation, not via milliseconds.
        (11_111, 0), (11_112, 1), (999_999, 89), (1_000_000, 90),
        // 2^32 ticks take 47721.8588444… s: the timestamp wraps between these two.
        (47_721_858_844_444, UInt32.max), (47_721_858_844_445, 0),
        // Int64.max × 9 / 100000 = 830103483316929, mod 2^32.
        (Int64.max, UInt32(830_103_483_316_929 % 4_294_967_296)),
    ] as [(Int64, UInt32)])
    func timestampFromNanoseconds(timestampNs: Int64, expected: UInt32) {
        #expect(RTPClock(offset: 0).rtpTimestamp(forNs: timestampNs) == expected)
    }

    @Test func offsetWrapsModulo2to32() {
        let clock = RTPClock(offset: 0xFFFF_FFF0)
        #expect(clock.rtpTimestamp(forNs: 0) == 0xFFFF_FFF0)
        #expect(clock.rtpTimestamp(forNs: 1_000_000_000) == 90_000 - 16)
    }

    @Test func consecutiveFramesAdvanceByTheExactTickCount() {
        let clock = RTPClock(offset: 0x8000_0000)
        // 30 fps frames at 33_333_333 ns: 2999.99997 ticks each, so a one-tick dip every frame but the first.
        var previous = clock.rtpTimestamp(forNs: 5_000_000_000)
        for frame in 1...100 {
            let timestampNs = 5_000_000_000 + Int64(frame) * 33_333_333
            let current = clock.rtpTimestamp(forNs: timestampNs)
            #expect(current &- previous == 2_999 || current &- previous == 3_000)
            #expect(current == 0x8000_0000 &+ UInt32(timestampNs * 9 / 100_000))
            previous = current
        }
    }
}


@Suite struct RTPSessionParametersTests {
    @Test func sameSeedGivesSameValues() {
        var first = SplitMix64(state: 42)
        var second = SplitMix64(state: 42)
        #expect(RTPSessionParameters.random(using: &first) == RTPSessionParameters.random(using: &second))
    }

    @Test func rangesHold() {
        var generator = SplitMix64(state: 7)
        var sawHighSSRC = false
        for _ in 0..<2_000 {
            let values = RTPSessionParameters.random(using: &generator)
            #expect(values.initialSequenceNumber < 1 << 15)
            #expect(values.initialPictureID < 1 << 15)
            sawHighSSRC = sawHighSSRC || values.ssrc >= 1 << 31
        }
        #expect(sawHighSSRC)
    }

    @Test func systemRandomValuesDiffer() {
        let draws = (0..<8).map { _ in RTPSessionParameters.random() }
        #expect(Set(draws.map(\.ssrc)).count > 1)
        #expect(Set(draws.map(\.timestampOffset)).count > 1)
    }
}
