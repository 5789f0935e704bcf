import Foundation

/// The preloaded per-thread allocation counter (Tests/Tools/thread_malloc_count.c), if any, once
/// it has been seen to count a known allocation (realpath's, which the optimiser cannot remove).
public enum AllocationCount {
    public static var verifiedFunction: (@Sendable () -> UInt)? {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "camrtp_thread_malloc_count") else { return nil }
        let count = unsafeBitCast(symbol, to: (@convention(c) () -> UInt).self)
        let before = count()
        free(realpath("/", nil))
        return count() > before ? { @Sendable in count() } : nil
    }
}

extension Array where Element == Double {
    public var median: Double { percentile(0.5) }

    /// The value at `fraction` (0...1) of the sorted values, nearest rank.
    public func percentile(_ fraction: Double) -> Double {
        guard !isEmpty else { return 0 }
        let sorted = self.sorted()
        return sorted[Swift.min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction + 0.5))]
    }
}
