import Metrics
import Prometheus

/// swift-metrics' backend when camrtp serves `/metrics`: swift-prometheus's registry, which
/// renders the Prometheus text exposition. Bootstrapped before the pipeline exists, since every
/// series is bound to the backend in place when it is made.
enum PrometheusBackend {
    /// Encode times and capture-to-wire latencies are milliseconds, not the default's seconds.
    static let durationBuckets: [Duration] = [
        .milliseconds(1), .microseconds(2500), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500),
    ]

    /// Makes the registry swift-metrics' backend; returns what renders it.
    static func bootstrap() -> @Sendable () -> String {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = durationBuckets
        MetricsSystem.bootstrap(factory)
        return { registry.emitToString() }
    }
}
