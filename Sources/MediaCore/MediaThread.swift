import CLinux
import Glibc
import Synchronization

/// A named thread that camrtp owns, for the blocking C calls (poll, libvpx, sendmmsg) that must
/// stay off the Swift concurrency pool. `join()` waits for the body to return.
public final class MediaThread: Sendable {
    private let thread: pthread_t
    private let joinable: Bool
    /// Held for the length of the join, so a second caller waits for the first and then returns.
    private let joined = Mutex(false)

    /// Starts `body` at once on a new thread called `name` (up to 15 characters show in `top`).
    /// A thread that is not `joinable` frees itself when its body returns.
    public init(name: String, joinable: Bool = true, body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(ThreadContext(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { raw in
            let context = Unmanaged<ThreadContext>.fromOpaque(raw!).takeRetainedValue()
            _ = camrtp_pthread_setname_np(pthread_self(), context.name.utf8.prefix(15).map { CChar(bitPattern: $0) } + [0])
            context.body()
            return nil
        }, context)
        precondition(result == 0, "pthread_create failed with \(result): the process is out of threads")
        if !joinable { pthread_detach(thread) }
        self.thread = thread
        self.joinable = joinable
    }

    /// Runs `body` on a thread of its own and returns its result, so that async code can wait on
    /// blocking calls without holding a thread of the Swift concurrency pool.
    public static func run<Result: Sendable>(name: String, _ body: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            _ = MediaThread(name: name, joinable: false) { continuation.resume(returning: body()) }
        }
    }

    /// True when called from this thread's body.
    public var isCurrent: Bool { pthread_equal(thread, pthread_self()) != 0 }

    /// Waits for the thread's body to return. Any number of callers may join; from the thread
    /// itself, or for a thread that is not joinable, it returns at once.
    public func join() {
        guard joinable, !isCurrent else { return }
        joined.withLock { joined in
            guard !joined else { return }
            pthread_join(thread, nil)
            joined = true
        }
    }
}

private final class ThreadContext {
    let name: String
    let body: @Sendable () -> Void

    init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }
}
