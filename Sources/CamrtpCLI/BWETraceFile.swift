import CongestionControl
import Glibc
import Synchronization

/// `--trace-bwe FILE`: one CSV line per congestion-controller update (time, target, delay trend,
/// threshold, loss, acknowledged rate, …), written from the send thread. Each line is flushed as
/// it is written (tens a second), so the file is whole up to the last update however the
/// process ends and whoever holds the sink last.
final class BWETraceFile: Sendable {
    private let file: Mutex<UnsafeMutablePointer<FILE>?>
    let path: String

    /// Opens (and truncates) `path` and writes the header, so a bad path fails before streaming.
    init(path: String) throws {
        guard let handle = fopen(path, "w") else {
            throw CLIError.usage("--trace-bwe \(path): cannot write: \(String(cString: strerror(errno)))")
        }
        fputs(BWETraceRecord.csvHeader + "\n", handle)
        file = Mutex(handle)
        self.path = path
    }

    func write(_ record: BWETraceRecord) {
        file.withLock { handle in
            guard let handle else { return }
            fputs(record.csvLine + "\n", handle)
            fflush(handle)
        }
    }

    /// Flushes and closes; later records are dropped.
    func close() {
        file.withLock { handle in
            if let handle { fclose(handle) }
            handle = nil
        }
    }

    deinit {
        close()
    }
}
