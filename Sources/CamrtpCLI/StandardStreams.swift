import Glibc
import Synchronization
import SystemPackage

/// Standard output and standard error as camrtp writes them: with `write(2)`, never through
/// `FileHandle`, which traps on a closed or full descriptor. Output on stdout is the command's
/// data (an SDP, a device list), so failing to write it is an error; stderr carries notes and
/// logs, and failing to write those is ignored, so a full log disk never stops a live stream.
enum StandardStreams {
    /// Set when the process started without a standard output (`camrtp sdp >&-`).
    private static let outputWasMissing = Atomic<Bool>(false)

    /// Call first in `main`. Streams the process started without are opened on /dev/null, so no
    /// file camrtp opens later takes their numbers (and gets log lines written into it), and a
    /// missing stdout is remembered as an error for the first write. A reader that goes away
    /// makes a write fail with EPIPE instead of killing the process with SIGPIPE.
    static func prepare() {
        signal(SIGPIPE, SIG_IGN)
        for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            if fd == STDOUT_FILENO { outputWasMissing.store(true, ordering: .relaxed) }
            let opened = open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY)
            if opened >= 0 && opened != fd {
                dup2(opened, fd)
                close(opened)
            }
        }
    }

    /// Writes `text` to standard output; a closed or full stdout is a run-time failure.
    static func print(_ text: String) throws {
        guard !outputWasMissing.load(ordering: .relaxed) else {
            throw CLIError.runtime("cannot write to standard output: it is closed")
        }
        do {
            try write(text, to: .standardOutput)
        } catch {
            throw CLIError.runtime("cannot write to standard output: \(error)")
        }
    }

    /// Writes `text` to standard error, ignoring failures.
    static func printError(_ text: String) {
        try? write(text, to: .standardError)
    }

    /// Writes all of `text`, retrying partial and interrupted writes.
    private static func write(_ text: String, to fd: FileDescriptor) throws {
        var text = text
        _ = try text.withUTF8 { bytes in try fd.writeAll(UnsafeRawBufferPointer(bytes)) }
    }
}

/// A note for the person at the terminal, on stderr so stdout stays clean for data.
package func printNote(_ text: String) {
    StandardStreams.printError("camrtp: " + text + "\n")
}

/// Log lines for swift-log's `StreamLogHandler`, written to stderr without ever trapping or
/// stopping the process.
struct StandardErrorLogStream: TextOutputStream, Sendable {
    mutating func write(_ string: String) {
        StandardStreams.printError(string)
    }
}
