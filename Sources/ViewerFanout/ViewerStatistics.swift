import MediaCore

/// One viewer's figures, kept by `MultiViewerSink` as its sink reports them.
public struct ViewerStatistics: Sendable, Equatable {
    public var id: Int
    /// Frames handed to the viewer's sink.
    public var framesForwarded = 0
    /// Frames skipped while the viewer waited for a keyframe (on joining, after a gap).
    public var framesSkippedBeforeKeyframe = 0
    /// Frames thrown away because the viewer's queue was full: its sink fell behind.
    public var framesDroppedSlow = 0
    /// Frames of temporal layers above the viewer's, not sent to it.
    public var framesAboveLayer = 0
    /// The highest temporal layer the viewer is sent; nil without layers.
    public var temporalLayer: Int?
    /// The simulcast encoding the viewer is sent (0 is the lowest); nil without simulcast or
    /// before its first keyframe.
    public var encodingIndex: Int?
    /// Padding probes for an up-switch that lost packets, so the viewer stayed where it was.
    public var paddingProbesFailed = 0
    /// Keyframes the viewer asked for (its receiver's PLI or FIR, or a resync after a gap).
    public var keyframeRequests = 0
    /// What its sink reported delivering: frames, and packets and bytes with overhead.
    public var framesDelivered = 0
    public var packetsSent = 0
    public var bytesSent = 0
    /// The viewer's latest estimate, in kbit/s, as its congestion controller set it.
    public var estimateKbps: Int?
    /// Nanoseconds from joining to its first forwarded frame (a keyframe).
    public var firstFrameDelayNs: Int64?
    /// The sender's own running figures (RTT, loss, RTCP), when it reports them.
    public var sender: SenderStatistics?

    public init(id: Int) {
        self.id = id
    }
}
