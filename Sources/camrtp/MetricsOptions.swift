import ArgumentParser
import Logging
import MetricsHTTP

/// `--metrics HOST:PORT` (send, publish): the Prometheus text exposition on a listener of its own.
struct MetricsOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Serve Prometheus metrics at http://HOST:PORT/metrics while streaming ([::1]:9464 for IPv6; port 0 picks a free one).",
        valueName: "host:port"))
    var metrics: String?

    func validate() throws {
        if let metrics, HostPort.parse(metrics) == nil {
            throw ValidationError("--metrics \"\(metrics)\": expected HOST:PORT, such as 127.0.0.1:9464 or [::1]:9464")
        }
    }

    /// With `--metrics`: makes Prometheus swift-metrics' backend and listens, before anything
    /// streams, so a port that is taken fails at once (exit 2). Call it before the pipeline is
    /// made: its series bind to the backend when they are made.
    func start() async throws -> MetricsListener? {
        guard let metrics, let (host, port) = HostPort.parse(metrics) else { return nil }
        let server = MetricsServer(
            host: host, port: port, page: MetricsPage(authenticator: nil, render: PrometheusBackend.bootstrap()),
            logger: Logger(label: "camrtp.metrics"))
        let listening = AsyncStream<Result<Int, any Error>>.makeStream()
        let task = Task {
            do {
                try await server.run { port in listening.continuation.yield(.success(port)) }
            } catch {
                listening.continuation.yield(.failure(error))
            }
            listening.continuation.finish()
        }
        for await outcome in listening.stream {
            switch outcome {
            case .success(let port):
                printNote("metrics at http://\(HostPort.urlHost(host)):\(port)/metrics")
                return MetricsListener(task: task)
            case .failure(let error):
                throw CLIError.usage("--metrics \(metrics): \(error); choose another address or port")
            }
        }
        throw CLIError.usage("--metrics \(metrics): the listener stopped before it started")
    }
}

/// A running `--metrics` listener; `stop()` ends it gracefully.
struct MetricsListener {
    let task: Task<Void, Never>

    func stop() async {
        task.cancel()
        await task.value
    }
}
