import Capture
import VP8

/// How a pipeline runs: encoder settings, pacing, the latency bound and when to stop.
public struct PipelineConfiguration: Sendable {
    public var encoder: VP8EncoderSettings
    /// `.fast` encodes every frame as fast as possible (files, benchmarks): nothing is dropped
    /// as late or too old. `.realtime` drops instead of queueing.
    public var pace: CapturePace
    /// A frame older than this when the encoder takes it is dropped as `tooOld`.
    public var maxLatencyMs: Double
    /// Stop after this many captured frames.
    public var frameLimit: Int?
    /// Stop after this many seconds.
    public var durationSeconds: Double?

    public init(
        encoder: VP8EncoderSettings, pace: CapturePace = .realtime, maxLatencyMs: Double = 100,
        frameLimit: Int? = nil, durationSeconds: Double? = nil
    ) {
        self.encoder = encoder
        self.pace = pace
        self.maxLatencyMs = maxLatencyMs
        self.frameLimit = frameLimit
        self.durationSeconds = durationSeconds
    }
}
