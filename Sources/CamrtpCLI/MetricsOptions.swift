import ArgumentParser

/// `--metrics HOST:PORT` (send, publish): the Prometheus text exposition on a listener of its own.
/// camrtp parses it; the listener is the HTTP stack's, which camrtp-webrtc has (`MetricsEndpoint`).
package struct MetricsOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Serve Prometheus metrics at http://HOST:PORT/metrics while streaming ([::1]:9464 for IPv6; port 0 picks a free one).",
        valueName: "host:port"))
    package var metrics: String?

    package init() {}

    package func validate() throws {
        if let metrics, HostPort.parse(metrics) == nil {
            throw ValidationError("--metrics \"\(metrics)\": expected HOST:PORT, such as 127.0.0.1:9464 or [::1]:9464")
        }
    }
}

/// What serves `--metrics` for a command of the program that runs it.
package protocol MetricsEndpoint {
    /// With `--metrics`: starts listening before anything streams, so a port that is taken fails
    /// at once (exit 2); nil without it. Call it before the pipeline is made: its series bind to
    /// the metrics backend when they are made.
    static func start(_ options: MetricsOptions) async throws -> MetricsListener?
}

/// A running `--metrics` listener; `stop()` ends it gracefully.
package struct MetricsListener {
    let task: Task<Void, Never>

    package init(task: Task<Void, Never>) {
        self.task = task
    }

    package func stop() async {
        task.cancel()
        await task.value
    }
}
