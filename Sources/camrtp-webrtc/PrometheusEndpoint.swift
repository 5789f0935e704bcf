import CamrtpCLI
import Logging
import MetricsHTTP

/// `--metrics` on a listener of its own: swift-prometheus's registry behind Hummingbird.
enum PrometheusEndpoint: MetricsEndpoint {
    static func start(_ options: MetricsOptions) async throws -> MetricsListener? {
        guard let metrics = options.metrics, let (host, port) = HostPort.parse(metrics) else { return nil }
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

extension MetricsOptions {
    func start() async throws -> MetricsListener? {
        try await PrometheusEndpoint.start(self)
    }
}
