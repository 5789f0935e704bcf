import CLinux
import Glibc
import Synchronization

/// One thread's wait for everything that can need it: sockets becoming readable, work queued by
/// other threads (`Waker`), and its own earliest deadline on the monotonic clock.
///
/// epoll watches the file descriptors, an eventfd carries wake-ups and a timerfd armed at an
/// absolute `CLOCK_MONOTONIC` time carries the deadline, so the wait is precise to the
/// microsecond and never follows the wall clock. `wait` reuses one event array: it allocates
/// nothing per call.
///
/// Owned by the thread that waits; only the `Waker` is shared.
public final class EventLoop {
    /// Why `wait` returned, one entry per ready source.
    public enum Event: Equatable, Sendable {
        /// The file descriptor registered with this token has data (or an error to read).
        case readable(token: Int)
        /// The descriptor registered with this token reports an error condition (ICMP errors
        /// queued on a UDP socket, for example).
        case failed(token: Int)
        /// A `Waker` was called since the last wait.
        case woken
        /// The deadline passed.
        case deadline
    }

    /// Wakes the loop from any thread.
    public final class Waker: Sendable {
        private let fd: Int32
        private let closed = Atomic<Bool>(false)

        init(fd: Int32) {
            self.fd = fd
        }

        public func wake() {
            guard !closed.load(ordering: .acquiring) else { return }
            var one: UInt64 = 1
            _ = retryingOnInterrupt { Glibc.write(fd, &one, 8) }
        }

        func close() {
            closed.store(true, ordering: .releasing)
        }
    }

    public let waker: Waker
    private let epollFD: Int32
    private let wakeFD: Int32
    private let timerFD: Int32
    private var armedDeadlineNs: Int64?
    private let events: UnsafeMutablePointer<epoll_event>
    private let eventCapacity = 16
    /// Reused between waits.
    public private(set) var ready: [Event] = []

    private static let wakeToken = -1
    private static let timerToken = -2

    public init() throws(SocketError) {
        let epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { throw .fromErrno("epoll_create1") }
        let wakeFD = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        guard wakeFD >= 0 else {
            let error = SocketError.fromErrno("eventfd")
            close(epollFD)
            throw error
        }
        let timerFD = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC) | Int32(TFD_NONBLOCK))
        guard timerFD >= 0 else {
            let error = SocketError.fromErrno("timerfd_create")
            close(wakeFD)
            close(epollFD)
            throw error
        }
        self.epollFD = epollFD
        self.wakeFD = wakeFD
        self.timerFD = timerFD
        waker = Waker(fd: wakeFD)
        events = .allocate(capacity: eventCapacity)
        ready.reserveCapacity(eventCapacity)
        try add(fd: wakeFD, token: Self.wakeToken)
        try add(fd: timerFD, token: Self.timerToken)
    }

    deinit {
        waker.close()
        close(timerFD)
        close(wakeFD)
        close(epollFD)
        events.deallocate()
    }

    /// Watches `fd` for input; `wait` reports it with `token` (0 or more).
    public func watch(fd: Int32, token: Int) throws(SocketError) {
        precondition(token >= 0, "tokens below 0 are the loop's own")
        try add(fd: fd, token: token)
    }

    /// Waits until something is ready or `deadlineNs` (monotonic clock) passes; nil waits without
    /// a deadline. The result, also in `ready`, lists each source once.
    @discardableResult
    public func wait(untilNs deadlineNs: Int64?) throws(SocketError) -> [Event] {
        try arm(deadlineNs)
        ready.removeAll(keepingCapacity: true)
        let count = retryingOnInterrupt { epoll_wait(epollFD, events, Int32(eventCapacity), -1) }
        guard count >= 0 else { throw .fromErrno("epoll_wait") }
        for index in 0..<Int(count) {
            let event = events[index]
            let token = Int(event.data.u64) - 2
            switch token {
            case Self.wakeToken:
                var value: UInt64 = 0
                _ = Glibc.read(wakeFD, &value, 8)
                ready.append(.woken)
            case Self.timerToken:
                var expirations: UInt64 = 0
                _ = Glibc.read(timerFD, &expirations, 8)
                armedDeadlineNs = nil
                ready.append(.deadline)
            default:
                if event.events & EPOLLIN.rawValue != 0 { ready.append(.readable(token: token)) }
                if event.events & EPOLLERR.rawValue != 0 { ready.append(.failed(token: token)) }
            }
        }
        return ready
    }

    private func add(fd: Int32, token: Int) throws(SocketError) {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        // Stored shifted so the loop's own negative tokens fit an unsigned field.
        event.data.u64 = UInt64(token + 2)
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 else { throw .fromErrno("epoll_ctl add fd \(fd)") }
    }

    /// Arms the timer at the absolute monotonic `deadlineNs`, or disarms it; skips the system call
    /// when the deadline is unchanged.
    private func arm(_ deadlineNs: Int64?) throws(SocketError) {
        guard deadlineNs != armedDeadlineNs else { return }
        // A zero it_value disarms; a deadline already past fires at once (1 ns from epoch).
        let target = deadlineNs.map { max($0, 1) } ?? 0
        var specification = itimerspec(
            it_interval: timespec(tv_sec: 0, tv_nsec: 0),
            it_value: timespec(tv_sec: Int(target / 1_000_000_000), tv_nsec: Int(target % 1_000_000_000)))
        guard timerfd_settime(timerFD, Int32(TFD_TIMER_ABSTIME), &specification, nil) == 0 else {
            throw .fromErrno("timerfd_settime")
        }
        armedDeadlineNs = deadlineNs
    }
}
