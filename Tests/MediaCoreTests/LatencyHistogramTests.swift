import MediaCore
import Testing

@Suite struct LatencyHistogramTests {
    @Test func emptyHasNoPercentiles() {
        #expect(LatencyHistogram().percentileMs(50) == nil)
    }

    @Test func smallValuesAreExact() {
        var histogram = LatencyHistogram()
        for micros in 1...100 { histogram.record(nanoseconds: Int64(micros) * 1000) }
        #expect(histogram.percentileMs(50) == 0.050)
        #expect(histogram.percentileMs(99) == 0.099)
        #expect(histogram.maxMs == 0.100)
    }

    @Test func largeValuesAreWithinOnePercent() {
        var histogram = LatencyHistogram()
        // 1 ms ... 1000 ms, uniformly.
        for millis in 1...1000 { histogram.record(nanoseconds: Int64(millis) * 1_000_000) }
        for p in [10.0, 50, 90, 99] {
            let value = histogram.percentileMs(p)!
            #expect(abs(value - p * 10) / (p * 10) < 0.01, "p\(p) = \(value)")
        }
        #expect(histogram.percentileMs(100) == 1000)
        #expect(histogram.count == 1000)
    }

    @Test func negativeDurationsCountAsZero() {
        var histogram = LatencyHistogram()
        histogram.record(nanoseconds: -5_000_000)
        #expect(histogram.percentileMs(50) == 0)
    }
}
