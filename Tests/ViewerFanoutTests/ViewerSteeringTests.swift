import Testing
@testable import ViewerFanout

@Suite struct ViewerSteeringTests {
    @Test func targetFollowsTheLowestViewerEstimateWithinTheEncoderRange() {
        var steering = ViewerSteering(minBitrateKbps: 100, maxBitrateKbps: 2000)
        _ = steering.addViewer(1, nowNs: 0)
        _ = steering.addViewer(2, nowNs: 0)
        #expect(steering.viewerEstimate(1, kbps: 1200).targetBitrateKbps == 1200)
        #expect(steering.viewerEstimate(2, kbps: 700).targetBitrateKbps == 700)
        // Viewer 1 rising changes nothing: viewer 2 still holds the target down.
        #expect(steering.viewerEstimate(1, kbps: 1500).targetBitrateKbps == nil)
        #expect(steering.targetBitrateKbps == 700)
        // The slow viewer leaves: the target goes up to the other's estimate.
        #expect(steering.removeViewer(2).targetBitrateKbps == 1500)
        #expect(steering.viewerEstimate(1, kbps: 50).targetBitrateKbps == 100)
        #expect(steering.viewerEstimate(1, kbps: 9000).targetBitrateKbps == 2000)
    }

    /// With temporal layers the slow viewer takes a lower layer, so the target follows the fast
    /// one, up to where the slow one's estimate still carries the base layer (40 % of it).
    @Test func withTemporalLayersTheTargetFollowsTheHighestEstimateTheBaseLayerAllows() {
        var steering = ViewerSteering(minBitrateKbps: 100, maxBitrateKbps: 2000, baseLayerShare: 0.4)
        _ = steering.addViewer(1, nowNs: 0)
        _ = steering.addViewer(2, nowNs: 0)
        #expect(steering.viewerEstimate(1, kbps: 1800).targetBitrateKbps == 1800)
        #expect(steering.viewerEstimate(2, kbps: 1000).targetBitrateKbps == nil, "1000 kbit/s carries the base of 2500")
        #expect(steering.viewerEstimate(2, kbps: 500).targetBitrateKbps == 1250)
        #expect(steering.viewerEstimate(1, kbps: 9000).targetBitrateKbps == nil)
        #expect(steering.viewerEstimate(2, kbps: 1200).targetBitrateKbps == 2000, "within the encoder's range")
        #expect(steering.estimate(of: 2) == 1200 && steering.estimate(of: 3) == nil)
    }

    /// With simulcast the slow viewer takes a lower encoding, so the target gives the fast one's
    /// encoding its whole estimate: its 1500 kbit/s on top of the 150 and 500 below it.
    @Test func withSimulcastTheTargetGivesTheBestViewersEncodingItsWholeEstimate() {
        var steering = ViewerSteering(minBitrateKbps: 100, maxBitrateKbps: 5000, encodingAllocation: threeEncodings)
        _ = steering.addViewer(1, nowNs: 0)
        _ = steering.addViewer(2, nowNs: 0)
        #expect(steering.viewerEstimate(1, kbps: 1500).targetBitrateKbps == 2150)
        #expect(steering.encodingRatesKbps == [150, 500, 1500])
        #expect(steering.viewerEstimate(2, kbps: 300).targetBitrateKbps == nil, "the slow viewer takes the lowest encoding")
        // An estimate below the top encoding's minimum: the half-size encoding takes it all.
        #expect(steering.viewerEstimate(1, kbps: 400).targetBitrateKbps == 550)
        #expect(steering.encodingRatesKbps == [150, 400, 0])
        #expect(steering.viewerEstimate(1, kbps: 9000).targetBitrateKbps == 5000, "within the encoder's range")
    }

    @Test func keyframeRequestsAreMergedPerEncoding() {
        var steering = ViewerSteering(minBitrateKbps: 100, maxBitrateKbps: 2000, minimumKeyframeIntervalNs: 300_000_000)
        #expect(steering.addViewer(1, encodingIndex: 2, nowNs: 0).keyframes == [2])
        #expect(steering.addViewer(2, encodingIndex: 0, nowNs: 10_000_000).keyframes == [0], "another encoding's keyframe is not held back")
        #expect(steering.keyframeRequested(encodingIndex: 2, nowNs: 20_000_000).keyframes == [])
        #expect(steering.keyframeRequested(encodingIndex: 0, nowNs: 30_000_000).keyframes == [])
        #expect(steering.poll(nowNs: 300_000_000).keyframes == [2])
        #expect(steering.poll(nowNs: 310_000_000).keyframes == [0])
        #expect(steering.poll(nowNs: 900_000_000).keyframes == [])
    }

    @Test func estimatesOfUnknownViewersAreIgnored() {
        var steering = ViewerSteering(minBitrateKbps: 100, maxBitrateKbps: 2000)
        _ = steering.addViewer(1, nowNs: 0)
        #expect(steering.viewerEstimate(7, kbps: 150) == .init())
        #expect(steering.targetBitrateKbps == 2000)
    }

    @Test func keyframeRequestsAreMergedWithinTheIntervalAndTheDeferredOneIsLetThrough() {
        var steering = ViewerSteering(minBitrateKbps: 100, maxBitrateKbps: 2000, minimumKeyframeIntervalNs: 300_000_000)
        #expect(steering.addViewer(1, nowNs: 0).requestsKeyframe)
        // A second viewer joins 100 ms later, and PLIs arrive: one keyframe is pending, none goes out.
        #expect(!steering.addViewer(2, nowNs: 100_000_000).requestsKeyframe)
        #expect(!steering.keyframeRequested(nowNs: 150_000_000).requestsKeyframe)
        #expect(!steering.poll(nowNs: 299_999_999).requestsKeyframe)
        #expect(steering.poll(nowNs: 300_000_000).requestsKeyframe)
        // The merged requests were served by that one keyframe.
        #expect(!steering.poll(nowNs: 900_000_000).requestsKeyframe)
        #expect(steering.keyframeRequested(nowNs: 900_000_000).requestsKeyframe)
    }

    @Test func theEncoderIdlesWithoutViewersAndHoldsBackOnlyWhenEveryViewerIsCongested() {
        var steering = ViewerSteering(minBitrateKbps: 100, maxBitrateKbps: 2000)
        #expect(steering.isCongested)
        #expect(steering.addViewer(1, nowNs: 0).congested == false)
        _ = steering.addViewer(2, nowNs: 0)
        #expect(steering.viewerCongested(1, true).congested == nil)
        #expect(steering.viewerCongested(2, true).congested == true)
        #expect(steering.viewerCongested(1, false).congested == false)
        #expect(steering.removeViewer(2).congested == nil)
        #expect(steering.removeViewer(1).congested == true)
    }
}
