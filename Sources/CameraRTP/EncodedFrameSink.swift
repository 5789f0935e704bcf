import MediaCore

/// Where encoded frames go: the RTP sender, or a file for `camrtp record`.
public protocol EncodedFrameSink: AnyObject, Sendable {
    /// Called on the encoder thread for every encoded frame, in order. Records what it sends
    /// with `stats.frameSent`.
    func consume(_ frame: EncodedFrame, stats: PipelineStats) throws
    /// Called once after the last frame, on the thread that stops the pipeline.
    func finish(stats: PipelineStats) throws
}
