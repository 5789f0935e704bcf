import MediaCore
import Testing
@testable import ViewerFanout

@Suite struct SimulcastSelectionTests {
    /// Three encodings at 150, 500 and 1500 kbit/s.
    static let rates = [150, 500, 1500]

    /// Capture `index`'s frames of every encoding, lowest first, as the encoder hands them on.
    static func capture(_ index: Int, keyframeOf keyed: Set<Int> = []) -> [EncodedFrame] {
        (0..<3).map { frame(index, key: keyed.contains($0), encoding: $0) }
    }

    /// The encodings of the frames `selection` forwards.
    static func forwarded(_ frames: [EncodedFrame], by selection: inout SimulcastSelection, nowNs: Int64 = 0) -> [Int] {
        frames.flatMap { selection.take($0, nowNs: nowNs).map(\.encodingIndex) }
    }

    @Test func theEstimatePicksTheHighestEncodingItsPathCarries() {
        #expect(SimulcastSelection.carriedEncoding(estimateKbps: 1500, encodingRatesKbps: Self.rates) == 2)
        #expect(SimulcastSelection.carriedEncoding(estimateKbps: 1499, encodingRatesKbps: Self.rates) == 1)
        #expect(SimulcastSelection.carriedEncoding(estimateKbps: 400, encodingRatesKbps: Self.rates) == 0)
        #expect(SimulcastSelection.carriedEncoding(estimateKbps: 40, encodingRatesKbps: Self.rates) == 0, "the lowest however low")
        // A paused encoding (rate 0) is never picked, and the lowest sent one stands in.
        #expect(SimulcastSelection.carriedEncoding(estimateKbps: 9000, encodingRatesKbps: [150, 500, 0]) == 1)
        #expect(SimulcastSelection.carriedEncoding(estimateKbps: 100, encodingRatesKbps: [0, 500, 1500]) == 1)
    }

    @Test func aViewerStartsOnTheTopEncodingFromItsKeyframe() {
        var selection = SimulcastSelection(encodingCount: 3)
        #expect(selection.takeKeyframeRequest() == 2)
        #expect(selection.takeKeyframeRequest() == nil, "asked once")
        #expect(Self.forwarded(Self.capture(0), by: &selection).isEmpty, "nothing before the top encoding's keyframe")
        #expect(Self.forwarded(Self.capture(1, keyframeOf: [0]), by: &selection).isEmpty)
        #expect(Self.forwarded(Self.capture(2, keyframeOf: [2]), by: &selection) == [2])
        #expect(Self.forwarded(Self.capture(3), by: &selection) == [2])
        #expect(selection.forwardedEncoding == 2 && selection.awaitedKeyframe == nil)
    }

    @Test func aDownSwitchIsDecidedAtOnceAndTakesEffectOnTheLowerEncodingsKeyframe() {
        var selection = SimulcastSelection(encodingCount: 3)
        _ = Self.forwarded(Self.capture(0, keyframeOf: [0, 1, 2]), by: &selection)
        _ = selection.takeKeyframeRequest()
        selection.update(estimateKbps: 300, encodingRatesKbps: Self.rates, nowNs: 100_000_000)
        #expect(selection.targetEncoding == 0)
        #expect(selection.takeKeyframeRequest() == 0)
        // Until that keyframe the viewer keeps the encoding it can decode.
        #expect(Self.forwarded(Self.capture(1), by: &selection) == [2])
        #expect(Self.forwarded(Self.capture(2, keyframeOf: [0]), by: &selection) == [0])
        #expect(Self.forwarded(Self.capture(3, keyframeOf: [2]), by: &selection) == [0], "a keyframe of another encoding changes nothing")
        #expect(selection.forwardedEncoding == 0 && selection.takeKeyframeRequest() == nil)
    }

    @Test func anUpSwitchWaitsForTheEstimateToHold() {
        var selection = SimulcastSelection(encodingCount: 3, upSwitchDelayNs: 1_000_000_000)
        selection.update(estimateKbps: 200, encodingRatesKbps: Self.rates, nowNs: 0)
        _ = Self.forwarded(Self.capture(0, keyframeOf: [0]), by: &selection)
        #expect(selection.forwardedEncoding == 0)
        _ = selection.takeKeyframeRequest()

        selection.update(estimateKbps: 2000, encodingRatesKbps: Self.rates, nowNs: 2_000_000_000)
        #expect(selection.targetEncoding == 0 && selection.takeKeyframeRequest() == nil)
        // A dip below the top's rate in the meantime does not restart the wait: the estimate still
        // carries more than the viewer gets.
        selection.update(estimateKbps: 600, encodingRatesKbps: Self.rates, nowNs: 2_500_000_000)
        #expect(Self.forwarded(Self.capture(1), by: &selection, nowNs: 2_999_999_999) == [0])
        #expect(Self.forwarded(Self.capture(2), by: &selection, nowNs: 3_000_000_000) == [0])
        #expect(selection.targetEncoding == 1, "the estimate carried now, once held a second")
        #expect(selection.takeKeyframeRequest() == 1)
        // The keyframe of encoding 1 replaces encoding 0's picture of the same capture.
        let switching = Self.capture(3, keyframeOf: [1])
        #expect(selection.take(switching[0], nowNs: 3_100_000_000).isEmpty, "held while the switch waits")
        #expect(selection.take(switching[1], nowNs: 3_100_000_000).map(\.encodingIndex) == [1])
        #expect(selection.take(switching[2], nowNs: 3_100_000_000).isEmpty)
        #expect(Self.forwarded(Self.capture(4), by: &selection, nowNs: 3_133_000_000) == [1])
    }

    @Test func aHeldFrameGoesOnWhenTheNextCaptureBringsNoSwitch() {
        var selection = SimulcastSelection(encodingCount: 3, upSwitchDelayNs: 0)
        selection.update(estimateKbps: 200, encodingRatesKbps: Self.rates, nowNs: 0)
        _ = Self.forwarded(Self.capture(0, keyframeOf: [0]), by: &selection)
        selection.update(estimateKbps: 2000, encodingRatesKbps: Self.rates, nowNs: 0)
        #expect(selection.targetEncoding == 2)
        let first = Self.capture(1), second = Self.capture(2)
        #expect(selection.take(first[0], nowNs: 0).isEmpty)
        #expect(selection.take(first[1], nowNs: 0).map(\.timestampNs) == [first[0].timestampNs], "not the switch: the held frame goes")
        #expect(selection.take(first[2], nowNs: 0).isEmpty)
        #expect(selection.take(second[0], nowNs: 0).isEmpty)
    }

    /// A policer lets a probe's burst through, so an estimate can promise more than the path
    /// carries: each up-switch undone within ten seconds doubles the wait before the next one, and
    /// one that holds makes it short again.
    @Test func failedUpSwitchesBackOffAndOneThatHoldsResetsTheWait() {
        var selection = SimulcastSelection(encodingCount: 3, upSwitchDelayNs: 1_000_000_000)
        var nowNs: Int64 = 0
        func estimate(_ kbps: Int, after seconds: Double) {
            nowNs += Int64(seconds * 1e9)
            selection.update(estimateKbps: kbps, encodingRatesKbps: Self.rates, nowNs: nowNs)
        }
        estimate(300, after: 0)
        #expect(selection.targetEncoding == 0)
        for expectedDelay in [1.0, 2.0, 4.0, 8.0] {
            #expect(selection.currentUpSwitchDelayNs == Int64(expectedDelay * 1e9))
            estimate(600, after: 1)
            estimate(600, after: expectedDelay - 0.001)
            #expect(selection.targetEncoding == 0, "not before \(expectedDelay) s")
            estimate(600, after: 0.001)
            #expect(selection.targetEncoding == 1)
            estimate(300, after: 3)
            #expect(selection.targetEncoding == 0, "the path did not carry it")
        }
        #expect(selection.currentUpSwitchDelayNs == 16_000_000_000)
        estimate(600, after: 1)
        estimate(600, after: 16)
        #expect(selection.targetEncoding == 1)
        estimate(600, after: 10)
        #expect(selection.currentUpSwitchDelayNs == 1_000_000_000, "it held for ten seconds")
        estimate(300, after: 1)
        #expect(selection.targetEncoding == 0 && selection.currentUpSwitchDelayNs == 1_000_000_000)
    }

    /// While an up-switch waits, the viewer's sender is asked to pad up to twice the higher
    /// encoding's rate, at most the estimate; nothing once the switch is made.
    @Test func anUpSwitchWaitsWithItsPathProbedByPadding() {
        var selection = SimulcastSelection(encodingCount: 3, upSwitchDelayNs: 1_000_000_000)
        selection.update(estimateKbps: 200, encodingRatesKbps: Self.rates, nowNs: 0)
        #expect(selection.pendingUpSwitch == nil)
        #expect(selection.paddingProbeKbps(estimateKbps: 200, encodingRatesKbps: Self.rates) == 0)
        selection.update(estimateKbps: 800, encodingRatesKbps: Self.rates, nowNs: 100_000_000)
        #expect(selection.pendingUpSwitch == 1)
        #expect(selection.paddingProbeKbps(estimateKbps: 800, encodingRatesKbps: Self.rates) == 800, "the estimate caps it")
        #expect(selection.paddingProbeKbps(estimateKbps: 1400, encodingRatesKbps: Self.rates) == 1000, "twice the 500 kbit/s")
        selection.update(estimateKbps: 800, encodingRatesKbps: Self.rates, nowNs: 1_100_000_000)
        #expect(selection.targetEncoding == 1 && selection.pendingUpSwitch == nil)
        #expect(selection.paddingProbeKbps(estimateKbps: 800, encodingRatesKbps: Self.rates) == 0)
    }

    /// A probe that lost packets cancels the up-switch, doubles the wait, and no attempt (so no
    /// probe) starts before that wait has passed, however high the estimate.
    @Test func aFailedProbeCancelsTheUpSwitchAndBacksOff() {
        var selection = SimulcastSelection(encodingCount: 3, upSwitchDelayNs: 1_000_000_000)
        let second: Int64 = 1_000_000_000
        selection.update(estimateKbps: 200, encodingRatesKbps: Self.rates, nowNs: 0)
        selection.update(estimateKbps: 900, encodingRatesKbps: Self.rates, nowNs: second)
        selection.paddingProbeFailed(goalKbps: 900, nowNs: second + second / 2)
        #expect(selection.pendingUpSwitch == nil && selection.targetEncoding == 0)
        #expect(selection.currentUpSwitchDelayNs == 2 * second)
        #expect(selection.ceilingKbps == 900, "the rate its path refused")
        selection.update(estimateKbps: 900, encodingRatesKbps: Self.rates, nowNs: 3 * second)
        #expect(selection.pendingUpSwitch == nil, "2 s after the failure have not passed")
        selection.update(estimateKbps: 900, encodingRatesKbps: Self.rates, nowNs: 3 * second + second / 2)
        #expect(selection.pendingUpSwitch == 1, "a new attempt, probed again")
        selection.update(estimateKbps: 900, encodingRatesKbps: Self.rates, nowNs: 5 * second + second / 2)
        #expect(selection.targetEncoding == 1, "after the doubled wait")
        #expect(selection.ceilingKbps == nil, "the path carried the up-switch")
        selection.paddingProbeFailed(goalKbps: 900, nowNs: 6 * second)
        #expect(selection.targetEncoding == 1 && selection.currentUpSwitchDelayNs == 2 * second, "no probe was waiting")
    }

    @Test func aViewerOnAnEncodingThatIsPausedMovesToOneStillSent() {
        var selection = SimulcastSelection(encodingCount: 3)
        _ = Self.forwarded(Self.capture(0, keyframeOf: [2]), by: &selection)
        _ = selection.takeKeyframeRequest()
        selection.update(estimateKbps: 5000, encodingRatesKbps: [150, 500, 0], nowNs: 0)
        #expect(selection.targetEncoding == 1 && selection.takeKeyframeRequest() == 1)
    }
}
