import MediaCore
import Testing
import VP8

@Suite struct VP8TemporalLayersTests {
    /// Runs `count` frames through the pattern, each coded (a keyframe first) unless `dropped` says otherwise.
    static func run(
        _ layers: inout VP8TemporalLayers, count: Int, keyframes: Set<Int> = [0], dropped: Set<Int> = []
    ) -> [(dependencies: VP8FrameDependencies, layer: EncodedFrame.TemporalLayer?)] {
        (0..<count).map { index in
            let dependencies = layers.nextFrame()
            guard !dropped.contains(index) else {
                layers.frameDropped()
                return (dependencies, nil)
            }
            return (dependencies, layers.frameEncoded(isKeyframe: keyframes.contains(index)))
        }
    }

    @Test func threeLayersFollowLibwebrtcsEightFramePattern() {
        var layers = VP8TemporalLayers(layerCount: 3)
        let frames = Self.run(&layers, count: 17)
        #expect(frames.map { $0.layer?.index } == [0, 2, 1, 2, 0, 2, 1, 2, 0, 2, 1, 2, 0, 2, 1, 2, 0])
        // The keyframe and, in every pattern, the first layer-1 and layer-2 frames after its base frame.
        #expect(frames.map { $0.layer?.isLayerSync } == [
            true, true, true, false, false, false, false, false,
            false, true, true, false, false, false, false, false, false,
        ])
        // Layer 0 refreshes last, layer 1 golden, layer 2 nothing and leaves the entropy alone.
        let second = frames[8...15].map(\.dependencies)
        #expect(second.map(\.updates) == [.last, [], .golden, [], .last, [], .golden, []])
        #expect(second.map(\.references) == [
            .last, .last, .last, [.last, .golden], .last, [.last, .golden], [.last, .golden], [.last, .golden],
        ])
        #expect(second.map(\.freezesEntropy) == [false, true, false, true, false, true, false, true])
    }

    @Test func twoLayersAlternateAndSyncEveryFourFrames() {
        var layers = VP8TemporalLayers(layerCount: 2)
        let frames = Self.run(&layers, count: 9)
        #expect(frames.map { $0.layer?.index } == [0, 1, 0, 1, 0, 1, 0, 1, 0])
        #expect(frames.map { $0.layer?.isLayerSync } == [true, true, false, false, false, true, false, false, false])
        #expect(frames[4...7].map(\.dependencies.updates) == [.last, .golden, .last, []])
    }

    @Test func theFirstFrameRefreshesEveryBuffer() {
        var layers = VP8TemporalLayers(layerCount: 3)
        let first = layers.nextFrame()
        #expect(first.references == [] && first.updates == .all && first.layer == 0)
    }

    @Test func aKeyframeRestartsThePattern() {
        var layers = VP8TemporalLayers(layerCount: 3)
        let frames = Self.run(&layers, count: 10, keyframes: [0, 6])
        #expect(frames.map { $0.layer?.index } == [0, 2, 1, 2, 0, 2, 0, 2, 1, 2])
        #expect(frames[6].layer == EncodedFrame.TemporalLayer(index: 0, isLayerSync: true))
        #expect(frames[7].layer?.isLayerSync == true && frames[8].layer?.isLayerSync == true)
    }

    @Test func aDroppedGoldenRefreshIsNotReferencedAndTheNextLayerFrameSyncs() {
        var layers = VP8TemporalLayers(layerCount: 3)
        // Frame 10 (layer 1, refreshes golden) is dropped: frame 11 (layer 2) must not use golden,
        // so it predicts from the base alone and is a sync point.
        let frames = Self.run(&layers, count: 12, dropped: [10])
        #expect(frames[11].dependencies.references == .last)
        #expect(frames[11].layer == EncodedFrame.TemporalLayer(index: 2, isLayerSync: true))
        // Without the drop, the same frame refers to golden and is no sync point.
        var intact = VP8TemporalLayers(layerCount: 3)
        let kept = Self.run(&intact, count: 12)
        #expect(kept[11].dependencies.references == [.last, .golden])
        #expect(kept[11].layer?.isLayerSync == false)
    }

    @Test func ratesSplitAsLibwebrtcAllocatesThem() {
        #expect(VP8TemporalLayers(layerCount: 2).cumulativeLayerKbps(total: 1000) == [600, 1000])
        #expect(VP8TemporalLayers(layerCount: 3).cumulativeLayerKbps(total: 1000) == [400, 600, 1000])
        #expect(VP8TemporalLayers(layerCount: 3).cumulativeLayerKbps(total: 333) == [133, 200, 333])
        #expect(VP8TemporalLayers(layerCount: 3).rateDecimators == [4, 2, 1])
        #expect(VP8TemporalLayers(layerCount: 3).layerIDs == [0, 2, 1, 2])
        #expect(VP8TemporalLayers(layerCount: 2).rateDecimators == [2, 1])
    }
}
