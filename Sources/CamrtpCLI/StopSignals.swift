import Glibc
import MediaCore
import Synchronization

/// SIGINT and SIGTERM, caught from the first line of `main` whatever the process inherited (a
/// background job in a script starts with SIGINT ignored), so that no signal is lost while
/// camrtp starts.
///
/// While a stream runs, a signal stops it cleanly: the encoder drains, the file or the RTCP BYE
/// is finished, the final figures are printed, and camrtp exits 0. At any other time (a camera
/// opening, a receiver starting, a pipe that has not sent its header yet) there is nothing to
/// finish: camrtp runs its clean-ups (a receiver it started, a temporary file) and exits at once
/// with 128 + the signal, 130 for SIGINT and 143 for SIGTERM, as a shell reports an interrupted
/// command.
///
/// The handler only writes the signal's number to a pipe (all a handler may safely do); a thread
/// of ours reads it and acts.
///
/// SIGHUP keeps its default (it ends camrtp) unless a command asks to reload on it (`serve`
/// re-reads its token file and certificate): then it runs the reload, on the same thread.
package enum StopSignals {
    private struct State {
        var stop: (@Sendable () -> Void)?
        var reload: (@Sendable () -> Void)?
        var cleanups: [Int: @Sendable () -> Void] = [:]
        var nextCleanup = 0
    }

    private static let state = Mutex(State())
    private static let notifyFD = Atomic<Int32>(-1)

    /// Installs the handlers and starts the thread that acts on them. Call it first in `main`.
    static func install() {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        // The handler must never block: with the pipe full, a signal is already on its way.
        _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
        notifyFD.store(fds[1], ordering: .sequentiallyConsistent)
        let readFD = fds[0]
        _ = MediaThread(name: "camrtp.signals", joinable: false) {
            var number: Int32 = 0
            while true {
                let count = read(readFD, &number, MemoryLayout<Int32>.size)
                if count == MemoryLayout<Int32>.size {
                    handle(number)
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
        catchSignals([SIGINT, SIGTERM])
    }

    /// Runs `reload` on every SIGHUP from now on.
    package static func reloadOnHangUp(_ reload: @escaping @Sendable () -> Void) {
        state.withLock { $0.reload = reload }
        catchSignals([SIGHUP])
    }

    private static func catchSignals(_ numbers: [Int32]) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
            var number = number
            let saved = errno
            _ = write(StopSignals.notifyFD.load(ordering: .relaxed), &number, MemoryLayout<Int32>.size)
            errno = saved
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        var signals = sigset_t()
        sigemptyset(&signals)
        for number in numbers {
            sigaction(number, &action, nil)
            sigaddset(&signals, number)
        }
        // A parent may have left them blocked; Ctrl-C and kill must still reach us.
        sigprocmask(SIG_UNBLOCK, &signals, nil)
    }

    /// Runs `body` (a running stream) with signals calling `stop` instead of ending the process.
    static func stopping<T>(with stop: @escaping @Sendable () -> Void, _ body: () async throws -> T) async rethrows -> T {
        state.withLock { $0.stop = stop }
        defer { state.withLock { $0.stop = nil } }
        return try await body()
    }

    /// Adds a clean-up to run if a signal ends camrtp before or after the stream; returns the
    /// token that `removeCleanup` takes once it is no longer needed.
    package static func addCleanup(_ cleanup: @escaping @Sendable () -> Void) -> Int {
        state.withLock { state in
            defer { state.nextCleanup += 1 }
            state.cleanups[state.nextCleanup] = cleanup
            return state.nextCleanup
        }
    }

    package static func removeCleanup(_ token: Int) {
        _ = state.withLock { $0.cleanups.removeValue(forKey: token) }
    }

    private static func handle(_ number: Int32) {
        if number == SIGHUP {
            state.withLock { $0.reload }?()
            return
        }
        let (stop, cleanups) = state.withLock { ($0.stop, Array($0.cleanups.values)) }
        if let stop {
            stop()
            return
        }
        for cleanup in cleanups { cleanup() }
        _exit(128 + number)
    }
}
