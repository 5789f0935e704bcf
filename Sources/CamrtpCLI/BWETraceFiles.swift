import CongestionControl
import Synchronization

/// `--trace-bwe PREFIX` of `serve` and `publish`: each WebRTC session (a viewer, a publish
/// attempt) writes its congestion-controller updates to a file of its own, `PREFIX-1.csv`,
/// `PREFIX-2.csv`, … in the order the sessions start, in the format of `send --trace-bwe`.
package final class BWETraceFiles: Sendable {
    private let prefix: String
    /// The sessions given a file so far, and the first file, opened up front so that a prefix
    /// that cannot be written fails before anything starts.
    private let state: Mutex<(sessions: Int, first: BWETraceFile?)>

    package init(prefix: String) throws {
        self.prefix = prefix
        state = Mutex((0, try BWETraceFile(path: Self.path(prefix: prefix, session: 1))))
    }

    static func path(prefix: String, session: Int) -> String {
        "\(prefix)-\(session).csv"
    }

    /// Where the next session's updates go; nil when its file cannot be opened (the directory
    /// went away), which costs that session its trace and nothing else.
    package func makeSink() -> BWETraceSink? {
        let file: BWETraceFile? = state.withLock { state in
            state.sessions += 1
            if state.sessions == 1 {
                defer { state.first = nil }
                return state.first
            }
            return try? BWETraceFile(path: Self.path(prefix: prefix, session: state.sessions))
        }
        guard let file else { return nil }
        return { record in file.write(record) }
    }
}
