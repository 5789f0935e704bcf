import MediaCore
import RTP
import Testing
@testable import ViewerFanout

@Suite struct MultiViewerSinkTests {
    private func makeSink(clock: ManualClock = ManualClock(), capacity: Int = 8, ended: MultiViewerSink.EndHandler? = nil) -> MultiViewerSink {
        MultiViewerSink(minBitrateKbps: 100, maxBitrateKbps: 2000, queueCapacity: capacity, clock: { clock.nowNs }, onViewerEnded: ended)
    }

    /// A fan-out of three simulcast encodings (`threeEncodings`), steering `encoder`.
    private func makeSimulcastSink(clock: ManualClock, encoder: RecordingEncoderControl) -> MultiViewerSink {
        let sink = MultiViewerSink(
            minBitrateKbps: 100, maxBitrateKbps: 5000, queueCapacity: 64, encodingAllocation: threeEncodings,
            clock: { clock.nowNs })
        sink.attach(encoder: encoder, reporter: .ignoring)
        return sink
    }

    @Test func withoutViewersTheEncoderIdlesAndTheFirstViewerWakesItWithAKeyframe() throws {
        let encoder = RecordingEncoderControl()
        let sink = makeSink()
        sink.attach(encoder: encoder, reporter: .ignoring)
        #expect(encoder.lastCongested == true)
        try sink.consume(frame(0, key: true))

        let viewer = RecordingViewerSink()
        let id = try #require(sink.addViewer(viewer))
        #expect(encoder.lastCongested == false)
        #expect(encoder.keyframeRequests == 1)
        try sink.consume(frame(1, key: false))
        try sink.consume(frame(2, key: true))
        try sink.consume(frame(3, key: false))
        viewer.waitForFrames(2)
        #expect(viewer.received.map(\.isKeyframe) == [true, false])
        #expect(sink.statistics(of: id)?.framesSkippedBeforeKeyframe == 1)
        #expect(sink.statistics(of: id)?.framesForwarded == 2)
        try sink.finish()
        #expect(viewer.finishCalls == 1)
    }

    @Test func aLateJoinerStartsOnTheKeyframeItAskedForWhileTheFirstViewerKeepsItsStream() throws {
        let clock = ManualClock()
        let encoder = RecordingEncoderControl()
        let sink = makeSink(clock: clock)
        sink.attach(encoder: encoder, reporter: .ignoring)
        let first = RecordingViewerSink()
        sink.addViewer(first)
        try sink.consume(frame(0, key: true))
        try sink.consume(frame(1, key: false))
        clock.advance(ms: 1000)

        let late = RecordingViewerSink()
        let lateID = try #require(sink.addViewer(late))
        #expect(encoder.keyframeRequests == 2)
        clock.advance(ms: 33)
        try sink.consume(frame(2, key: false))
        clock.advance(ms: 33)
        try sink.consume(frame(3, key: true))
        first.waitForFrames(4)
        late.waitForFrames(1)
        #expect(first.received.map(\.isKeyframe) == [true, false, false, true])
        #expect(late.received.first?.isKeyframe == true)
        #expect(sink.statistics(of: lateID)?.firstFrameDelayNs == 66_000_000)
        try sink.finish()
    }

    @Test func keyframeRequestsFromAnyViewerReachTheEncoderRateLimited() throws {
        let clock = ManualClock()
        let encoder = RecordingEncoderControl()
        let sink = makeSink(clock: clock)
        sink.attach(encoder: encoder, reporter: .ignoring)
        let a = RecordingViewerSink(), b = RecordingViewerSink()
        let idA = try #require(sink.addViewer(a))
        sink.addViewer(b)
        a.waitUntilAttached()
        b.waitUntilAttached()
        #expect(encoder.keyframeRequests == 1)
        clock.advance(ms: 500)
        // A PLI storm from both viewers within 300 ms: one keyframe now, one merged for later.
        a.control?.requestKeyframe()
        b.control?.requestKeyframe()
        a.control?.requestKeyframe()
        #expect(encoder.keyframeRequests == 2)
        clock.advance(ms: 300)
        try sink.consume(frame(0, key: true))
        #expect(encoder.keyframeRequests == 3)
        #expect(sink.statistics(of: idA)?.keyframeRequests == 2)
        try sink.finish()
    }

    @Test func theEncoderFollowsTheLowestViewerEstimate() throws {
        let encoder = RecordingEncoderControl()
        let sink = makeSink()
        sink.attach(encoder: encoder, reporter: .ignoring)
        let a = RecordingViewerSink(), b = RecordingViewerSink()
        sink.addViewer(a)
        let idB = try #require(sink.addViewer(b))
        a.waitUntilAttached()
        b.waitUntilAttached()
        a.control?.setTargetBitrate(kbps: 1500)
        b.control?.setTargetBitrate(kbps: 600)
        #expect(encoder.lastTarget == 600)
        #expect(sink.targetBitrateKbps == 600)
        sink.removeViewer(idB)
        #expect(encoder.lastTarget == 1500)
        b.waitUntilFinished()
        try sink.finish()
    }

    /// With three temporal layers, a viewer on a slow path gets the base layer alone while the
    /// fast one gets every frame, and the encoder follows the fast one as far as the slow one
    /// still carries the base layer. The slow viewer's own packetizer numbers what it is given,
    /// so its PictureIDs and TL0PICIDX run on without a gap.
    @Test func eachViewerGetsTheTemporalLayersItsOwnEstimateCarries() throws {
        let clock = ManualClock()
        let encoder = RecordingEncoderControl()
        let sink = MultiViewerSink(
            minBitrateKbps: 100, maxBitrateKbps: 2500, queueCapacity: 64, temporalLayerShares: TemporalLayerSelectionTests.shares,
            clock: { clock.nowNs })
        sink.attach(encoder: encoder, reporter: .ignoring)
        let fast = RecordingViewerSink(), slow = RecordingViewerSink()
        let fastID = try #require(sink.addViewer(fast))
        let slowID = try #require(sink.addViewer(slow))
        fast.waitUntilAttached()
        slow.waitUntilAttached()
        fast.control?.setTargetBitrate(kbps: 2000)
        slow.control?.setTargetBitrate(kbps: 700)
        // 700 kbit/s carries the base layer (40 %) of 1750 kbit/s, not of more.
        #expect(encoder.lastTarget == 1750)
        let frames = TemporalLayerSelectionTests.frames(periods: 2)
        for frame in frames { try sink.consume(frame) }
        fast.waitForFrames(frames.count)
        slow.waitForFrames(5)
        #expect(fast.received.map { $0.temporalLayer?.index } == frames.map { $0.temporalLayer?.index })
        #expect(slow.received.map { $0.temporalLayer?.index } == [0, 0, 0, 0, 0])
        #expect(sink.statistics(of: slowID)?.framesAboveLayer == 12)
        #expect(sink.statistics(of: slowID)?.temporalLayer == 0)
        #expect(sink.statistics(of: fastID)?.temporalLayer == 2)

        var payloader = VP8Payloader(initialPictureID: 100, initialTL0PictureIndex: 7)
        let splits = try slow.received.map { frame in
            try payloader.split(
                frameSize: frame.data.count, isDroppable: false,
                temporalLayer: frame.temporalLayer.map { VP8PayloadDescriptor.TemporalLayer(index: UInt8($0.index), isLayerSync: $0.isLayerSync) },
                payloadCapacity: 1200)
        }
        #expect(splits.map(\.pictureID) == [100, 101, 102, 103, 104])
        #expect(splits.map(\.tl0PictureIndex) == [7, 8, 9, 10, 11])
        try sink.finish()
    }

    /// With three simulcast encodings, a viewer on a slow path moves to the quarter-size encoding
    /// on its keyframe while the fast one keeps the full size, each receiving its encoding as its
    /// only one, and a PLI from the slow viewer asks for a keyframe of its encoding alone.
    @Test func eachViewerGetsTheSimulcastEncodingItsOwnEstimateCarries() throws {
        let clock = ManualClock()
        let encoder = RecordingEncoderControl()
        let sink = makeSimulcastSink(clock: clock, encoder: encoder)
        let fast = RecordingViewerSink(), slow = RecordingViewerSink()
        let fastID = try #require(sink.addViewer(fast))
        clock.advance(ms: 400)
        let slowID = try #require(sink.addViewer(slow))
        #expect(encoder.keyframeEncodings == [2, 2], "both start on the top encoding")
        for encoding in 0..<3 { try sink.consume(frame(0, key: true, encoding: encoding)) }
        fast.waitUntilAttached()
        slow.waitUntilAttached()
        fast.control?.setTargetBitrate(kbps: 1500)
        slow.control?.setTargetBitrate(kbps: 300)
        #expect(encoder.lastTarget == 2150)
        #expect(encoder.keyframeEncodings == [2, 2, 0], "the slow viewer's switch waits for a keyframe of the lowest")
        for index in 1...3 {
            for encoding in 0..<3 { try sink.consume(frame(index, key: index == 2 && encoding == 0, encoding: encoding)) }
        }
        fast.waitForFrames(4)
        slow.waitForFrames(4)
        #expect(fast.received.map(\.width) == [1280, 1280, 1280, 1280])
        #expect(slow.received.map(\.width) == [1280, 1280, 320, 320], "full size until the lowest encoding's keyframe")
        #expect((fast.received + slow.received).allSatisfy { $0.encodingIndex == 0 })
        #expect(sink.statistics(of: fastID)?.encodingIndex == 2)
        #expect(sink.statistics(of: slowID)?.encodingIndex == 0)

        clock.advance(ms: 400)
        slow.control?.requestKeyframe(encodingIndex: 0)
        #expect(encoder.keyframeEncodings.last == 0)
        try sink.finish()
    }

    /// A viewer whose estimate grows past a higher encoding is first asked to pad its path up
    /// to it; when its sender says the padding lost packets, it stays where it is, is asked for
    /// no more padding, and the refusal is counted. Its estimate no longer raises the encoder's
    /// total above what its path refused, so it cannot push the fast viewer off the full size.
    @Test func anUpSwitchProbesTheViewersPathAndAFailedProbeKeepsItDown() throws {
        let clock = ManualClock()
        let encoder = RecordingEncoderControl()
        let sink = makeSimulcastSink(clock: clock, encoder: encoder)
        let fast = RecordingViewerSink(), slow = RecordingViewerSink()
        sink.addViewer(fast)
        let slowID = try #require(sink.addViewer(slow))
        for encoding in 0..<3 { try sink.consume(frame(0, key: true, encoding: encoding)) }
        fast.waitUntilAttached()
        slow.waitUntilAttached()
        let control = try #require(slow.control)
        fast.control?.setTargetBitrate(kbps: 1500)
        slow.control?.setTargetBitrate(kbps: 300)
        #expect(control.paddingProbeKbps == 0)
        clock.advance(ms: 100)
        slow.control?.setTargetBitrate(kbps: 800)
        #expect(control.paddingProbeKbps == 800, "up to the estimate, short of twice the half size's 500")
        clock.advance(ms: 500)
        control.paddingProbeFailed()
        #expect(control.paddingProbeKbps == 0)
        clock.advance(ms: 600)
        slow.control?.setTargetBitrate(kbps: 810)
        #expect(control.paddingProbeKbps == 0, "no new attempt within the doubled wait")
        #expect(sink.statistics(of: slowID)?.paddingProbesFailed == 1)
        #expect(sink.statistics(of: slowID)?.encodingIndex != 1)
        slow.control?.setTargetBitrate(kbps: 3000)
        #expect(encoder.lastTarget == 2150, "the fast viewer's 1500 and the lower encodings, not the slow one's 3000")
        try sink.finish()
    }

    @Test func aStuckViewerLosesItsOwnFramesAndResynchronisesWithoutHoldingUpTheOthers() throws {
        let clock = ManualClock()
        let encoder = RecordingEncoderControl()
        let sink = makeSink(clock: clock, capacity: 3)
        sink.attach(encoder: encoder, reporter: .ignoring)
        let stuck = RecordingViewerSink(), healthy = RecordingViewerSink()
        stuck.hold()
        let stuckID = try #require(sink.addViewer(stuck))
        sink.addViewer(healthy)
        try sink.consume(frame(0, key: true))
        stuck.waitUntilInsideConsume()
        // The healthy viewer takes each frame before the next comes, as at a real frame rate.
        healthy.waitForFrames(1)
        for index in 1..<20 {
            try sink.consume(frame(index, key: false))
            healthy.waitForFrames(index + 1)
        }
        let stats = try #require(sink.statistics(of: stuckID))
        #expect(stats.framesDroppedSlow > 0)
        #expect(encoder.keyframeRequests == 1)

        // Once it catches up, it asks for a keyframe and starts again from it.
        clock.advance(ms: 1000)
        stuck.release()
        encoder.waitForKeyframeRequests(2)
        try sink.consume(frame(20, key: false))
        try sink.consume(frame(21, key: true))
        try sink.consume(frame(22, key: false))
        stuck.waitForFrames(3)
        #expect(stuck.received.map(\.timestampNs) == [0, 21, 22].map { frame($0, key: false).timestampNs })
        try sink.finish()
    }

    @Test func aFailingViewerIsRemovedAndReportedWhileTheOthersGoOn() throws {
        let ended = EndedViewers()
        let sink = makeSink(ended: { final, error in ended.record(final.id, failed: error != nil) })
        let encoder = RecordingEncoderControl()
        sink.attach(encoder: encoder, reporter: .ignoring)
        let failing = RecordingViewerSink(failAfter: 2), healthy = RecordingViewerSink()
        let failingID = try #require(sink.addViewer(failing))
        sink.addViewer(healthy)
        for index in 0..<6 { try sink.consume(frame(index, key: index == 0)) }
        ended.waitFor(failingID)
        #expect(ended.failed(failingID))
        #expect(failing.finishCalls == 1)
        healthy.waitForFrames(6)
        #expect(sink.viewerCount == 1)
        #expect(sink.statistics(of: failingID) == nil)
        try sink.finish()
        #expect(healthy.finishCalls == 1)
    }

    @Test func viewerReportsAreKeptPerViewerAndTheirTrafficPassedOn() throws {
        let totals = DeliveredTotals()
        let sink = makeSink()
        sink.attach(encoder: RecordingEncoderControl(), reporter: SinkReporter { totals.record($0) })
        let a = RecordingViewerSink(), b = RecordingViewerSink()
        let idA = try #require(sink.addViewer(a))
        sink.addViewer(b)
        try sink.consume(frame(0, key: true))
        try sink.consume(frame(1, key: false))
        a.waitForFrames(2)
        b.waitForFrames(2)
        #expect(sink.statistics(of: idA)?.packetsSent == 4)
        #expect(sink.statistics(of: idA)?.framesDelivered == 2)
        #expect(sink.viewerStatistics.count == 2)
        try sink.finish()
        #expect(totals.packets == 8)
        #expect(sink.viewerStatistics.isEmpty)
    }

    @Test func nothingJoinsAfterTheStreamFinished() throws {
        let sink = makeSink()
        sink.attach(encoder: RecordingEncoderControl(), reporter: .ignoring)
        try sink.finish()
        #expect(sink.addViewer(RecordingViewerSink()) == nil)
        #expect(!sink.removeViewer(1))
    }
}

final class EndedViewers: @unchecked Sendable {
    private let condition = ThreadCondition()
    private var ended: [Int: Bool] = [:]

    func record(_ id: Int, failed: Bool) {
        condition.withLock {
            ended[id] = failed
            condition.broadcast()
        }
    }

    func waitFor(_ id: Int) { condition.withLock { while ended[id] == nil { condition.wait() } } }
    func failed(_ id: Int) -> Bool { condition.withLock { ended[id] ?? false } }
}

final class DeliveredTotals: @unchecked Sendable {
    private let condition = ThreadCondition()
    private var count = 0

    func record(_ event: SinkEvent) {
        if case .frameDelivered(_, let packets, _, _) = event { condition.withLock { count += packets } }
    }

    var packets: Int { condition.withLock { count } }
}
