import Adaptation
import ArgumentParser
import CameraRTP
import MediaCore

/// Output size and frame-rate cap, applied by the video source before the encoder.
package struct AdaptOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Output size WxH; the picture is cropped to its aspect (centred) and scaled down, never up.",
        valueName: "WxH"))
    var size: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Maximum output frame rate; extra frames are dropped on WebRTC's grid.", valueName: "n"))
    package var fps: Double?

    @Flag(help: "Mirror the picture left to right (a selfie view).")
    var mirror = false

    package init() {}

    package func validate() throws {
        if let size, VideoMode(parsing: size) == nil || size.contains("@") {
            throw ValidationError("--size \"\(size)\": expected WxH with each side 2...\(VideoLimits.maxSide), such as 640x360")
        }
        if let fps, !(fps > 0 && fps <= 240) { throw ValidationError("--fps must be in (0, 240], not \(fps)") }
    }

    package var outputSize: (width: Int, height: Int)? {
        size.flatMap(VideoMode.init(parsing:)).map { ($0.width, $0.height) }
    }

    /// The pipeline settings for `source`: adaptation, encoder, pacing and stop conditions.
    package func pipelineConfiguration(
        for source: CaptureSource, input: SourceOptions, encoder: EncoderOptions, applyRotation: Bool,
        defaultKeyframeIntervalSeconds: Double = EncoderOptions.defaultKeyframeIntervalSeconds
    ) -> PipelineConfiguration {
        PipelineConfiguration(
            encoder: encoder.settings(defaultKeyframeIntervalSeconds: defaultKeyframeIntervalSeconds),
            outputSize: outputSize, maxFps: fps,
            adaptation: VideoSourceOptions(applyRotation: applyRotation, mirror: mirror),
            pace: input.pace ?? .realtime, frameLimit: input.frames, durationSeconds: input.duration)
    }
}
