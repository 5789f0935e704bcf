import Adaptation
import Capture
import MediaCore
import VP8

/// How a pipeline runs: adaptation, encoder settings, pacing, the latency bound and when to stop.
public struct PipelineConfiguration: Sendable {
    /// Output size; nil keeps the source's size. Cropped to the aspect and scaled down, never up.
    public var outputSize: (width: Int, height: Int)?
    /// The highest frame rate sent; nil sends every frame.
    public var maxFps: Double?
    /// Rotate the pixels (for receivers that ignore CVO), mirror, align camera timestamps.
    public var adaptation: VideoSourceOptions
    /// How the encoder codes; the size and rate it is opened for come from `outputFormat(for:)`.
    /// With simulcast its bitrate is the total and its temporal layers each encoding's.
    public var encoder: VP8EncoderSettings
    /// How many VP8 encodings of each picture (`VP8SimulcastEncoder`: full, half and quarter
    /// size), 1...3; 1 is one stream. The sink gets each picture's frames lowest encoding first.
    public var simulcast: Int = 1
    /// `.fast` encodes every frame as fast as possible (files, benchmarks): nothing is dropped
    /// as late or too old. `.realtime` drops instead of queueing.
    public var pace: CapturePace
    /// A frame older than this when the encoder takes it is dropped as `tooOld`.
    public var maxLatencyMs: Double
    /// Stop after this many captured frames.
    public var frameLimit: Int?
    /// Stop after this many seconds; nil or infinity runs until the source ends or a stop.
    public var durationSeconds: Double?
    /// Added to every swift-metrics metric of this pipeline, such as `[("stream", "lobby")]`.
    public var metricsDimensions: [(String, String)] = []

    public init(
        encoder: VP8EncoderSettings = VP8EncoderSettings(), outputSize: (width: Int, height: Int)? = nil, maxFps: Double? = nil,
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

    /// The size and rate of the frames the encoder will get from `source`: the adapter's crop
    /// and scale (`FrameGeometry`), sides swapped when a 90° or 270° rotation is applied, and the
    /// rate capped by `maxFps`.
    public func outputFormat(for source: CaptureSource) -> VP8PictureFormat {
        let geometry = FrameGeometry(
            inputWidth: source.width, inputHeight: source.height,
            request: outputSize.map { .exact(width: $0.width, height: $0.height) })
        let swaps = adaptation.applyRotation && source.rotation.swapsDimensions
        return VP8PictureFormat(
            width: swaps ? geometry.height : geometry.width, height: swaps ? geometry.width : geometry.height,
            frameRate: min(maxFps ?? source.fps, source.fps))
    }

    /// When the duration ends, for a run started at `startNs`; nil when it never does.
    func deadlineNs(startingAt startNs: Int64) -> Int64? {
        // Past a century the product would not fit 64-bit nanoseconds; it is "forever" anyway.
        guard let durationSeconds, durationSeconds.isFinite, durationSeconds < 3e9 else { return nil }
        return startNs + Int64(max(0, durationSeconds) * 1e9)
    }
}
