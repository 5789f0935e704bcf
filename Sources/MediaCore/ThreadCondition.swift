import Glibc

/// A mutex and a condition variable over pthread, for threads that wait on each other (the frame
/// mailbox, the pipeline's control state). Deadlines are on `CLOCK_MONOTONIC`, the clock of every
/// `timestampNs`, so a change of the wall clock neither shortens nor stretches a wait.
///
/// `wait` and `signal`/`broadcast` are called with the lock held, as with pthread itself.
public final class ThreadCondition: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    public func lock() {
        pthread_mutex_lock(mutex)
    }

    public func unlock() {
        pthread_mutex_unlock(mutex)
    }

    public func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Releases the lock until signalled (or woken spuriously), then takes it again.
    public func wait() {
        pthread_cond_wait(condition, mutex)
    }

    /// Like `wait()`, but returns by the time `MonotonicClock` reads `deadlineNs`; false if it
    /// returned because the deadline passed.
    @discardableResult
    public func wait(untilNs deadlineNs: Int64) -> Bool {
        let clamped = max(0, deadlineNs)
        var deadline = timespec(tv_sec: Int(clamped / 1_000_000_000), tv_nsec: Int(clamped % 1_000_000_000))
        return pthread_cond_timedwait(condition, mutex, &deadline) != ETIMEDOUT
    }

    /// Wakes one waiter.
    public func signal() {
        pthread_cond_signal(condition)
    }

    /// Wakes every waiter.
    public func broadcast() {
        pthread_cond_broadcast(condition)
    }
}
