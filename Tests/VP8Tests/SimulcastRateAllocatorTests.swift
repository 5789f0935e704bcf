import Testing
import VP8

/// The rates are libwebrtc's: `kSimulcastFormats` in `video/config/simulcast.cc` (1280x720: max
/// 2500, target 2500, min 600 kbit/s; 640x360: 700, 500, 150; 320x180: 200, 150, 30) and the
/// distribution of `SimulcastRateAllocator::DistributeAllocationToSimulcastLayers`.
@Suite struct SimulcastRateAllocatorTests {
    static let quarter = SimulcastRates(minBps: 30_000, targetBps: 150_000, maxBps: 200_000)
    static let half = SimulcastRates(minBps: 150_000, targetBps: 500_000, maxBps: 700_000)
    static let full = SimulcastRates(minBps: 600_000, targetBps: 2_500_000, maxBps: 2_500_000)

    @Test func threeEncodingsOf720pTakeTheTablesSizesAndRates() throws {
        let layout = try SimulcastLayout(width: 1280, height: 720, count: 3, temporalLayers: 3)
        #expect(layout.encodings.map { [$0.width, $0.height] } == [[320, 180], [640, 360], [1280, 720]])
        #expect(layout.encodings.map(\.rates) == [Self.quarter, Self.half, Self.full])
        #expect(layout.encodings.allSatisfy { $0.temporalLayers == 3 })
    }

    @Test func twoEncodingsOf360p() throws {
        let layout = try SimulcastLayout(width: 640, height: 360, count: 2, temporalLayers: 3)
        #expect(layout.encodings.map { [$0.width, $0.height] } == [[320, 180], [640, 360]])
        #expect(layout.encodings.map(\.rates) == [Self.quarter, Self.half])
    }

    /// libwebrtc keeps the lowest encoding's base layer at 40 % of its three-layer rate: with
    /// fewer layers its max and target shrink by 0.4 / (the base layer's share).
    @Test(arguments: [(1, 80_000, 60_000), (2, 133_333, 100_000)])
    func theLowestEncodingWithFewerTemporalLayersKeepsItsBaseLayerRate(layers: Int, maxBps: Int, targetBps: Int) throws {
        let layout = try SimulcastLayout(width: 1280, height: 720, count: 3, temporalLayers: layers)
        #expect(layout.encodings[0].rates == SimulcastRates(minBps: 30_000, targetBps: targetBps, maxBps: maxBps))
        #expect(layout.encodings[2].rates == Self.full)
    }

    /// Between the table's rows the rates follow the pixel count (`InterpolateSimulcastFormat`):
    /// 1200x600 lies halfway, by pixels, between 1280x720 and 960x540.
    @Test func sizesBetweenRowsInterpolate() throws {
        let layout = try SimulcastLayout(width: 2400, height: 1200, count: 2, temporalLayers: 3)
        #expect(layout.encodings[0].rates == SimulcastRates(minBps: 475_000, targetBps: 1_850_000, maxBps: 1_850_000))
    }

    @Test(arguments: [
        (640, 360, 3, "640x360 is too small for 3 simulcast encodings: it takes at most 2 (3 need at least 960x540)"),
        (320, 180, 2, "320x180 is too small for 2 simulcast encodings: it takes one (2 need at least 480x270)"),
        (1280, 722, 3, "1280x722 does not halve exactly for 3 simulcast encodings: both sides must be multiples of 4"),
        (1280, 720, 4, "simulcast takes 1, 2 or 3 encodings, not 4"),
    ])
    func layoutsLibwebrtcWouldNotMakeAreRefused(width: Int, height: Int, count: Int, message: String) {
        #expect(throws: VPXError.self) { try SimulcastLayout(width: width, height: height, count: count, temporalLayers: 3) }
        do {
            _ = try SimulcastLayout(width: width, height: height, count: count, temporalLayers: 3)
        } catch {
            #expect(error.message == message)
        }
    }

    /// The lowest gets up to its target first, then the next; the highest sent takes the rest up
    /// to its max; one whose minimum does not fit is paused with all above it. The lowest always
    /// gets at least its minimum.
    @Test(arguments: [
        (10, [30_000, 0, 0]),
        (100, [100_000, 0, 0]),
        (250, [200_000, 0, 0]),
        (1000, [150_000, 700_000, 0]),
        (1500, [150_000, 500_000, 850_000]),
        (5000, [150_000, 500_000, 2_500_000]),
    ])
    func theTotalFillsTheEncodingsLowestFirst(totalKbps: Int, expected: [Int]) {
        var allocator = SimulcastRateAllocator(rates: [Self.quarter, Self.half, Self.full])
        #expect(allocator.allocate(totalBps: totalKbps * 1000) == expected)
    }

    /// A paused encoding comes back only when 1.2 × its minimum fits (720 kbit/s for 720p),
    /// where a first allocation takes it at its minimum (600).
    @Test func aPausedEncodingResumesAboveItsMinimumWithHysteresis() {
        var allocator = SimulcastRateAllocator(rates: [Self.quarter, Self.half, Self.full])
        #expect(allocator.allocate(totalBps: 1_500_000) == [150_000, 500_000, 850_000])
        #expect(allocator.allocate(totalBps: 1_200_000) == [150_000, 700_000, 0])
        #expect(allocator.allocate(totalBps: 1_300_000) == [150_000, 700_000, 0])
        #expect(allocator.allocate(totalBps: 1_370_000) == [150_000, 500_000, 720_000])
        #expect(allocator.allocate(totalBps: 1_300_000) == [150_000, 500_000, 650_000], "once on, its plain minimum holds it")

        var fresh = SimulcastRateAllocator(rates: [Self.quarter, Self.half, Self.full])
        #expect(fresh.allocate(totalBps: 1_300_000) == [150_000, 500_000, 650_000])
    }

    /// An encoding the answer declined gets nothing and the total goes to the others, as
    /// libwebrtc allocates with an inactive encoding: the lowest active one always gets its
    /// minimum, and the top one sent takes the rest up to its maximum.
    @Test(arguments: [
        ([0, 2], 1500, [150_000, 0, 1_350_000]),
        ([1, 2], 1500, [0, 500_000, 1_000_000]),
        ([1, 2], 100, [0, 150_000, 0]),
        ([0, 1], 5000, [150_000, 700_000, 0]),
        ([2], 300, [0, 0, 600_000]),
        ([], 1500, [0, 0, 0]),
    ])
    func anInactiveEncodingIsPassedOver(active: [Int], totalKbps: Int, expected: [Int]) {
        var allocator = SimulcastRateAllocator(rates: [Self.quarter, Self.half, Self.full])
        allocator.active = Set(active)
        #expect(allocator.allocate(totalBps: totalKbps * 1000) == expected)
    }

    /// An encoding made active again is a paused one coming back: it needs 1.2 × its minimum.
    @Test func anEncodingMadeActiveAgainComesBackWithHysteresis() {
        var allocator = SimulcastRateAllocator(rates: [Self.quarter, Self.half, Self.full])
        allocator.active = [0, 1]
        #expect(allocator.allocate(totalBps: 1_300_000) == [150_000, 700_000, 0])
        allocator.active = [0, 1, 2]
        #expect(allocator.allocate(totalBps: 1_300_000) == [150_000, 700_000, 0])
        #expect(allocator.allocate(totalBps: 1_370_000) == [150_000, 500_000, 720_000])
    }

    /// Each encoding's share then splits among its temporal layers as `VP8TemporalLayers`
    /// shares a stream's: 40 %, 60 % and 100 % cumulative with three.
    @Test func eachEncodingsShareSplitsAmongItsTemporalLayers() {
        var allocator = SimulcastRateAllocator(rates: [Self.quarter, Self.half, Self.full])
        let kbps = allocator.allocate(totalBps: 1_500_000).map { $0 / 1000 }
        let layers = VP8TemporalLayers(layerCount: 3)
        #expect(kbps.map { layers.cumulativeLayerKbps(total: $0) } == [[60, 90, 150], [200, 300, 500], [340, 510, 850]])
    }
}
