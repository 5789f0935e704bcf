import Logging
import ServiceLifecycle

/// Runs a service until the caller's task is cancelled, then shuts it down gracefully: open
/// requests are answered and no new connections are taken. Cancellation alone would tear the
/// listener down mid-request (and Hummingbird logs that as an error), so the group runs in a
/// task of its own that the caller's cancellation does not reach.
public enum GracefulService {
    public static func run(_ service: some Service, logger: Logger) async throws {
        let group = ServiceGroup(configuration: .init(services: [service], gracefulShutdownSignals: [], logger: logger))
        let running = Task { try await group.run() }
        try await withTaskCancellationHandler {
            try await running.value
        } onCancel: {
            Task { await group.triggerGracefulShutdown() }
        }
    }
}
