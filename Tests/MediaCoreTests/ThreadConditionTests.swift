import MediaCore
import Synchronization
import Testing

@Suite struct ThreadConditionTests {
    @Test func aWaiterWakesWhenSignalled() {
        let condition = ThreadCondition()
        let ready = Mutex(false)
        let waiter = MediaThread(name: "test.waiter") {
            condition.withLock {
                while !ready.withLock({ $0 }) { condition.wait() }
            }
        }
        condition.withLock {
            ready.withLock { $0 = true }
            condition.broadcast()
        }
        waiter.join()
        #expect(ready.withLock { $0 })
    }

    @Test func aWaitWithAPastDeadlineTimesOut() {
        let condition = ThreadCondition()
        let signalled = condition.withLock { condition.wait(untilNs: MonotonicClock.nowNs() - 1_000_000) }
        #expect(!signalled)
    }

    @Test func aWaitUntilADeadlineReturnsNoEarlierThanIt() {
        let condition = ThreadCondition()
        let deadlineNs = MonotonicClock.nowNs() + 20_000_000
        condition.withLock {
            while condition.wait(untilNs: deadlineNs) {}
        }
        #expect(MonotonicClock.nowNs() >= deadlineNs)
    }

    /// A plain mutex would deadlock here, and the test would never end.
    @Test func theRecursiveLockCanBeTakenAgainByItsHolder() {
        let lock = RecursiveLock()
        let calls = Mutex(0)
        func reenter(_ depth: Int) {
            lock.lock()
            defer { lock.unlock() }
            calls.withLock { $0 += 1 }
            if depth > 0 { reenter(depth - 1) }
        }
        reenter(2)
        #expect(calls.withLock { $0 } == 3)
    }
}
