import CNice
import MediaCore

/// A GMainContext and its GMainLoop, run on a thread of our own: libnice's timers, sockets and
/// signals all live on this context, so they never touch the Swift concurrency pool.
///
/// `invoke` may be called from any thread until the loop stops; the body runs on the loop's
/// thread, in the order of the calls.
final class GLibLoopThread: @unchecked Sendable {
    /// GMainContext; our own, so libnice attaches nothing to the process's default context.
    let context: OpaquePointer
    private let loop: OpaquePointer
    private var thread: MediaThread?

    init() {
        context = g_main_context_new()
        loop = g_main_loop_new(context, 0)
    }

    deinit {
        g_main_loop_unref(loop)
        g_main_context_unref(context)
    }

    /// Runs the loop on a new thread until `quit`; then `teardown` runs there. Bodies still
    /// queued then are never run: the context releases them when it goes. The thread keeps this
    /// object, and so the context, alive until it ends.
    func start(name: String, teardown: @escaping @Sendable () -> Void) {
        thread = MediaThread(name: name) { [self] in
            // The thread-default context is where libnice's close_async calls back.
            g_main_context_push_thread_default(context)
            g_main_loop_run(loop)
            teardown()
            g_main_context_pop_thread_default(context)
        }
    }

    /// Runs `body` on the loop's thread: at once when called from it, else on its next iteration.
    func invoke(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(InvokedBody(body)).toOpaque()
        g_main_context_invoke_full(context, G_PRIORITY_DEFAULT, { raw in
            Unmanaged<InvokedBody>.fromOpaque(raw!).takeUnretainedValue().body()
            return 0  // G_SOURCE_REMOVE
        }, box, { raw in
            Unmanaged<InvokedBody>.fromOpaque(raw!).release()
        })
    }

    /// Runs `body` on the loop's thread once `milliseconds` have passed, unless the loop stops
    /// first. The wait runs on the loop's own clock, not on the busy concurrency pool.
    func after(milliseconds: UInt32, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(InvokedBody(body)).toOpaque()
        let source = g_timeout_source_new(milliseconds)
        g_source_set_callback(source, { raw in
            Unmanaged<InvokedBody>.fromOpaque(raw!).takeUnretainedValue().body()
            return 0  // G_SOURCE_REMOVE
        }, box, { raw in
            Unmanaged<InvokedBody>.fromOpaque(raw!).release()
        })
        g_source_attach(source, context)
        g_source_unref(source)
    }

    func quit() {
        g_main_loop_quit(loop)
    }

    /// Waits for the loop's thread to finish its teardown. On that thread itself (an agent
    /// released from one of its own handlers) a short-lived thread joins it instead, so that no
    /// finished thread is left unjoined.
    func join() {
        guard let thread else { return }
        if thread.isCurrent {
            _ = MediaThread(name: "camrtp.ice.join", joinable: false) { thread.join() }
        } else {
            thread.join()
        }
    }
}

private final class InvokedBody {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

/// A C handle carried into the loop thread's closure; only that thread uses it meanwhile.
struct UncheckedPointer: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}
