import HTTPAccess
import Hummingbird
import Logging

/// A listener of its own for `GET /metrics` (`send --metrics`, `publish --metrics`): nothing else
/// is served, every other path is 404.
public final class MetricsServer: Sendable {
    public let host: String
    public let port: Int
    private let page: MetricsPage
    private let logger: Logger

    public init(host: String, port: Int, page: MetricsPage, logger: Logger) {
        self.host = host
        self.port = port
        self.page = page
        self.logger = logger
    }

    public func makeRouter() -> Router<AddressedRequestContext> {
        let router = Router(context: AddressedRequestContext.self)
        router.get("/metrics") { request, context in self.page.response(to: request, context: context) }
        return router
    }

    /// Serves until the task is cancelled, then shuts down gracefully. `listening` gets the bound
    /// port (useful with port 0).
    public func run(listening: @escaping @Sendable (_ port: Int) async -> Void = { _ in }) async throws {
        let app = Application(
            router: makeRouter(),
            configuration: .init(address: .hostname(host, port: port), serverName: "camrtp"),
            onServerRunning: { channel in await listening(channel.localAddress?.port ?? 0) },
            logger: logger)
        try await GracefulService.run(app, logger: logger)
    }
}
