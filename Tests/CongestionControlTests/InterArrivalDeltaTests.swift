import Testing

@testable import CongestionControl

@Suite struct InterArrivalDeltaTests {
    private let ms: Int64 = 1_000_000

    @Test func spacesGroupsByTheirFirstPackets() {
        var groups = InterArrivalDelta()
        // Frame 1: three packets sent within 5 ms; frame 2 33 ms later; frame 3 opens a new group.
        for (sendMs, arrivalMs) in [(0, 100), (1, 104), (2, 108), (33, 140), (34, 144)] as [(Int64, Int64)] {
            #expect(
                groups.add(sendTimeNs: sendMs * ms, arrivalTimeNs: arrivalMs * ms, systemTimeNs: arrivalMs * ms) == nil)
        }
        let deltas = groups.add(sendTimeNs: 66 * ms, arrivalTimeNs: 175 * ms, systemTimeNs: 175 * ms)
        #expect(deltas == InterArrivalDelta.Deltas(sendDeltaNs: 33 * ms, arrivalDeltaNs: 40 * ms))
    }

    @Test func aBurstJoinsTheGroup() {
        var groups = InterArrivalDelta()
        _ = groups.add(sendTimeNs: 0, arrivalTimeNs: 100 * ms, systemTimeNs: 0)
        _ = groups.add(sendTimeNs: 4 * ms, arrivalTimeNs: 110 * ms, systemTimeNs: 0)
        // Sent 8 ms after the group's first packet but delivered in a burst right behind it.
        _ = groups.add(sendTimeNs: 8 * ms, arrivalTimeNs: 111 * ms, systemTimeNs: 0)
        _ = groups.add(sendTimeNs: 33 * ms, arrivalTimeNs: 140 * ms, systemTimeNs: 0)
        let deltas = groups.add(sendTimeNs: 66 * ms, arrivalTimeNs: 170 * ms, systemTimeNs: 0)
        #expect(deltas == InterArrivalDelta.Deltas(sendDeltaNs: 33 * ms, arrivalDeltaNs: 40 * ms))
    }

    @Test func theNextFrameBehindABackloggedQueueIsItsOwnGroup() {
        var groups = InterArrivalDelta()
        // Frames 33 ms apart arrive back to back (4 ms), as behind a busy bottleneck.
        _ = groups.add(sendTimeNs: 0, arrivalTimeNs: 100 * ms, systemTimeNs: 0)
        _ = groups.add(sendTimeNs: 33 * ms, arrivalTimeNs: 104 * ms, systemTimeNs: 0)
        let deltas = groups.add(sendTimeNs: 66 * ms, arrivalTimeNs: 108 * ms, systemTimeNs: 0)
        #expect(deltas == InterArrivalDelta.Deltas(sendDeltaNs: 33 * ms, arrivalDeltaNs: 4 * ms))
    }

    @Test func reorderedGroupsAreSkippedAndThreeInARowReset() {
        var groups = InterArrivalDelta()
        _ = groups.add(sendTimeNs: 0, arrivalTimeNs: 500 * ms, systemTimeNs: 0)
        _ = groups.add(sendTimeNs: 33 * ms, arrivalTimeNs: 400 * ms, systemTimeNs: 0)
        for step in 2...4 {
            let sendNs = Int64(step) * 33 * ms
            #expect(groups.add(sendTimeNs: sendNs, arrivalTimeNs: 400 * ms + sendNs, systemTimeNs: 0) == nil)
        }
        // After the reset, two more groups are needed before the next deltas.
        #expect(groups.add(sendTimeNs: 200 * ms, arrivalTimeNs: 800 * ms, systemTimeNs: 0) == nil)
        #expect(groups.add(sendTimeNs: 233 * ms, arrivalTimeNs: 833 * ms, systemTimeNs: 0) == nil)
        #expect(groups.add(sendTimeNs: 266 * ms, arrivalTimeNs: 866 * ms, systemTimeNs: 0) != nil)
    }

    @Test func anArrivalClockThatJumpsRestartsTheGrouping() {
        var groups = InterArrivalDelta()
        _ = groups.add(sendTimeNs: 0, arrivalTimeNs: 0, systemTimeNs: 0)
        _ = groups.add(sendTimeNs: 33 * ms, arrivalTimeNs: 33 * ms, systemTimeNs: 33 * ms)
        // The receiver's clock jumps 5 s while ours moves 33 ms; the group after shows it.
        #expect(groups.add(sendTimeNs: 66 * ms, arrivalTimeNs: 5066 * ms, systemTimeNs: 66 * ms) != nil)
        #expect(groups.add(sendTimeNs: 99 * ms, arrivalTimeNs: 5099 * ms, systemTimeNs: 99 * ms) == nil)
        #expect(groups.add(sendTimeNs: 132 * ms, arrivalTimeNs: 5132 * ms, systemTimeNs: 132 * ms) == nil)
        #expect(groups.add(sendTimeNs: 165 * ms, arrivalTimeNs: 5165 * ms, systemTimeNs: 165 * ms) == nil)
        #expect(groups.add(sendTimeNs: 198 * ms, arrivalTimeNs: 5198 * ms, systemTimeNs: 198 * ms) != nil)
    }

    @Test func aPacketSentBeforeItsGroupIsIgnored() {
        var groups = InterArrivalDelta()
        _ = groups.add(sendTimeNs: 33 * ms, arrivalTimeNs: 100 * ms, systemTimeNs: 0)
        #expect(groups.add(sendTimeNs: 0, arrivalTimeNs: 101 * ms, systemTimeNs: 0) == nil)
    }
}
