import Foundation
import MallocInterposerSwift

/// Heap allocations made by `body` on every thread, through the preloaded interposer.
enum AllocationCounter {
    struct Count {
        var mallocs: Int
        var bytes: Int
    }

    /// Without LD_PRELOAD the interposer's symbols link but never see a call, so a known
    /// allocation proves it is in place: realpath's, which the optimiser cannot remove as it
    /// may remove a malloc/free (or strdup/free) pair.
    static func isPreloaded() -> Bool {
        MallocInterposerSwift.initialize()
        let count = measure {
            free(realpath("/", nil))
        }
        return count.mallocs > 0
    }

    static func measure<E: Error>(_ body: () throws(E) -> Void) throws(E) -> Count {
        MallocInterposerSwift.reset()
        MallocInterposerSwift.hook()
        do {
            try body()
        } catch {
            MallocInterposerSwift.unhook()
            throw error
        }
        MallocInterposerSwift.unhook()
        let statistics = MallocInterposerSwift.getStatistics()
        return Count(mallocs: statistics.mallocCount, bytes: statistics.mallocBytesCount)
    }
}

/// Monotonic seconds, for throughput.
func now() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}
