import MediaCore

/// What a running pipeline reports, through `StreamPipeline.events` and its event handler.
public enum PipelineEvent: Sendable {
    case started
    /// A keyframe left the encoder for the sink.
    case keyframeSent(timestampNs: Int64)
    /// A receiver asked for a keyframe and the request reached the encoder.
    case keyframeRequested(KeyframeRequestSource)
    case frameDropped(FrameDropReason)
    /// A run-time error; the pipeline stops after it.
    case error(String)
    /// Every second while running: the pipeline's and the sender's figures (RTT, loss, target).
    case stats(StatsSnapshot)
    /// The final figures, once everything has stopped.
    case stopped(StatsSnapshot)
}
