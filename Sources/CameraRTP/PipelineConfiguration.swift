import Adaptation
import Capture
import VP8

/// How a pipeline runs: adaptation, encoder settings, pacing, the latency bound and when to stop.
public struct PipelineConfiguration: Sendable {
    /// Output size; nil keeps the source's size. Cropped to the aspect and scaled down, never up.
    public var outputSize: (width: Int, height: Int)?
    /// The highest frame rate sent; nil sends every frame.
    public var maxFps: Double?
    /// Rotate the pixels (for receivers that ignore CVO), mirror, align camera timestamps.
    public var adaptation: VideoSourceOptions
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
    /// Added to every swift-metrics metric of this pipeline, such as `[("stream", "lobby")]`.
    public var metricsDimensions: [(String, String)] = []

    public init(
        encoder: VP8EncoderSettings, outputSize: (width: Int, height: Int)? = nil, maxFps: Double? = nil,
        adaptation: VideoSourceOptions = VideoSourceOptions(), pace: CapturePace = .realtime,
        maxLatencyMs: Double = 100, frameLimit: Int? = nil, durationSeconds: Double? = nil
    ) {
        self.encoder = encoder
        self.outputSize = outputSize
        self.maxFps = maxFps
        self.adaptation = adaptation
        self.pace = pace
        self.maxLatencyMs = maxLatencyMs
        self.frameLimit = frameLimit
        self.durationSeconds = durationSeconds
    }
}
