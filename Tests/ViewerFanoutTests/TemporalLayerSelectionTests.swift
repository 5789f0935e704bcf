import MediaCore
import TestSupport
import Testing
@testable import ViewerFanout

@Suite struct TemporalLayerSelectionTests {
    static let shares = [0.4, 0.6, 1.0]
    /// libwebrtc's three-layer pattern: layer and layer sync of frames 1...8 after a keyframe.
    static let pattern: [(index: Int, sync: Bool)] = [
        (2, true), (1, true), (2, false), (0, false), (2, false), (1, false), (2, false), (0, false),
    ]

    /// A keyframe, then `periods` of the pattern (the first frame of each later period syncs
    /// layer 2 and 1 again, as the encoder marks them).
    static func frames(periods: Int) -> [EncodedFrame] {
        var frames = [layered(0, sync: true, key: true)]
        for period in 0..<periods {
            for (offset, layer) in pattern.enumerated() {
                let sync = layer.sync || (period > 0 && offset < 2)
                frames.append(layered(layer.index, sync: sync))
            }
        }
        return frames
    }

    static func layered(_ index: Int, sync: Bool, key: Bool = false) -> EncodedFrame {
        var frame = encodedFrame([1], isKeyframe: key)
        frame.temporalLayer = EncodedFrame.TemporalLayer(index: index, isLayerSync: sync)
        return frame
    }

    /// The layers of the frames `selection` forwards, one frame per 33 ms from `startNs`.
    static func forwarded(_ frames: [EncodedFrame], by selection: inout TemporalLayerSelection, startNs: Int64 = 0) -> [Int] {
        frames.enumerated().compactMap { offset, frame in
            selection.forwards(frame, nowNs: startNs + Int64(offset) * 33_000_000) ? frame.temporalLayer?.index : nil
        }
    }

    @Test func theEstimatePicksTheHighestLayerItsPathCarries() {
        let selection = TemporalLayerSelection(cumulativeShares: Self.shares)
        // An encoder at 2000 kbit/s: the layers need 800, 1200 and 2000 kbit/s.
        #expect(selection.carriedLayer(estimateKbps: 2000, encoderKbps: 2000) == 2)
        #expect(selection.carriedLayer(estimateKbps: 1999, encoderKbps: 2000) == 1)
        #expect(selection.carriedLayer(estimateKbps: 1200, encoderKbps: 2000) == 1)
        #expect(selection.carriedLayer(estimateKbps: 900, encoderKbps: 2000) == 0)
        #expect(selection.carriedLayer(estimateKbps: 300, encoderKbps: 2000) == 0, "the base layer however low")
    }

    @Test func aViewerStartsOnEveryLayerAndGoesDownAtOnce() {
        var selection = TemporalLayerSelection(cumulativeShares: Self.shares)
        let frames = Self.frames(periods: 2)
        #expect(Self.forwarded(Array(frames[0...4]), by: &selection) == [0, 2, 1, 2, 0])
        // Its first estimate carries the base layer only: from the next frame on, nothing above it.
        selection.update(estimateKbps: 700, encoderKbps: 2000, nowNs: 170_000_000)
        #expect(selection.allowedLayer == 0 && selection.forwardedLayer == 0)
        #expect(Self.forwarded(Array(frames[5...]), by: &selection, startNs: 170_000_000) == [0, 0, 0])
    }

    @Test func upSwitchesWaitForTheEstimateToHoldThenClimbOneLayerAtATimeOnSyncFrames() {
        var selection = TemporalLayerSelection(cumulativeShares: Self.shares, upSwitchDelayNs: 1_000_000_000)
        selection.update(estimateKbps: 500, encoderKbps: 2000, nowNs: 0)
        #expect(selection.allowedLayer == 0)
        // The path now carries everything, but only from 1 s on does the viewer climb.
        selection.update(estimateKbps: 2500, encoderKbps: 2000, nowNs: 100_000_000)
        #expect(selection.allowedLayer == 0)
        selection.update(estimateKbps: 2400, encoderKbps: 2000, nowNs: 1_099_999_999)
        #expect(selection.allowedLayer == 0)
        selection.update(estimateKbps: 2400, encoderKbps: 2000, nowNs: 1_100_000_000)
        #expect(selection.allowedLayer == 2 && selection.forwardedLayer == 0)
        // Mid-pattern (after the keyframe's base frame, frames 2...8): layer 2's sync frame comes
        // first but layer 1 is not taken yet, so it waits; layer 1 syncs, then layer 2 at the
        // next period's sync frame.
        let frames = Array(Self.frames(periods: 3).dropFirst(2))
        let layers = Self.forwarded(frames, by: &selection, startNs: 1_100_000_000)
        #expect(layers == [1, 0, 1, 0] + [2, 1, 2, 0, 2, 1, 2, 0] + [2, 1, 2, 0, 2, 1, 2, 0])
        #expect(selection.forwardedLayer == 2)
    }

    @Test func anEstimateThatFallsBackBeforeTheDelayCancelsTheUpSwitch() {
        var selection = TemporalLayerSelection(cumulativeShares: Self.shares, upSwitchDelayNs: 1_000_000_000)
        selection.update(estimateKbps: 500, encoderKbps: 2000, nowNs: 0)
        selection.update(estimateKbps: 2000, encoderKbps: 2000, nowNs: 100_000_000)
        selection.update(estimateKbps: 600, encoderKbps: 2000, nowNs: 600_000_000)
        selection.update(estimateKbps: 2000, encoderKbps: 2000, nowNs: 700_000_000)
        selection.update(estimateKbps: 2000, encoderKbps: 2000, nowNs: 1_600_000_000)
        #expect(selection.allowedLayer == 0, "the estimate has held for 0.9 s only")
        // The delay also passes while frames flow, without a new estimate.
        let forwarded = selection.forwards(Self.layered(1, sync: true), nowNs: 1_700_000_000)
        #expect(forwarded)
        #expect(selection.allowedLayer == 2 && selection.forwardedLayer == 1)
    }

    @Test func aKeyframeTakesTheViewerStraightToItsLayer() {
        var selection = TemporalLayerSelection(cumulativeShares: Self.shares, upSwitchDelayNs: 0)
        selection.update(estimateKbps: 500, encoderKbps: 2000, nowNs: 0)
        selection.update(estimateKbps: 1300, encoderKbps: 2000, nowNs: 1)
        #expect(selection.allowedLayer == 1 && selection.forwardedLayer == 0)
        #expect(Self.forwarded(Self.frames(periods: 1), by: &selection, startNs: 2) == [0, 1, 0, 1, 0])
    }

    @Test func framesWithoutLayersAlwaysGo() {
        var selection = TemporalLayerSelection(cumulativeShares: Self.shares)
        selection.update(estimateKbps: 10, encoderKbps: 2000, nowNs: 0)
        let forwarded = selection.forwards(encodedFrame([1]), nowNs: 0)
        #expect(forwarded)
    }
}
