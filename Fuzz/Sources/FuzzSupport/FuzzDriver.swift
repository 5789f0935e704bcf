import CFuzzer

#if canImport(Glibc)
import Glibc
#endif

/// The code under test, called once per input. libFuzzer takes a C function pointer, which
/// cannot capture, so the body waits here; the driver calls it from one thread only.
nonisolated(unsafe) private var fuzzBody: ((UnsafeRawBufferPointer) -> Void)?

/// Runs libFuzzer over `body` with the process's arguments (corpus folders, `-runs=N`,
/// `-max_total_time=S`, ...) and exits with libFuzzer's status. A trap, sanitizer report or
/// `fuzzCheck` failure in `body` ends the run and saves the input as `crash-<hash>`.
public func fuzz(_ body: @escaping (UnsafeRawBufferPointer) -> Void) -> Never {
    fuzzBody = body
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    let status = LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        fuzzBody?(UnsafeRawBufferPointer(start: data, count: size))
        return 0
    }
    exit(status)
}

/// An invariant of the code under test: traps with `message` when it does not hold, so that
/// libFuzzer keeps the input. Unlike `precondition`, it prints the message in release builds.
public func fuzzCheck(
    _ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line
) {
    if !condition { fatalError(message(), file: file, line: line) }
}
