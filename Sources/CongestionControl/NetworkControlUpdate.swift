/// What one input to the controller produced, for the send loop to apply.
public struct NetworkControlUpdate: Sendable {
    /// The new estimate, when the rates or the window changed.
    public var estimate: NetworkEstimate?
    /// Probe clusters for the pacer (`Pacer.addProbeCluster`).
    public var probeClusters: [ProbeCluster]
    /// The estimator's state after this input, for `--trace-bwe`.
    public var trace: BWETraceRecord?

    public init(estimate: NetworkEstimate? = nil, probeClusters: [ProbeCluster] = [], trace: BWETraceRecord? = nil) {
        self.estimate = estimate
        self.probeClusters = probeClusters
        self.trace = trace
    }
}
