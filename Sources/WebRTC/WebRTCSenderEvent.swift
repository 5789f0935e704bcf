import MediaCore
import RTPSender
import Transport

/// What a `WebRTCVideoSender` reports as it happens.
public enum WebRTCSenderEvent: Sendable, Hashable {
    case stateChanged(WebRTCConnectionState)
    /// The peer asked for a keyframe (PLI, FIR) and the encoder was told; also sent once when the
    /// connection becomes ready, as `.application`, since the peer has seen nothing yet.
    case keyframeRequested(KeyframeRequestSource)
    /// Congestion control moved the encoder's target.
    case targetBitrate(kbps: Int)
}

/// A sender's figures: the connection's, the frames held back until it was ready, and the RTP
/// sender's own.
public struct WebRTCSenderStatistics: Sendable {
    public var connection: WebRTCConnectionStatistics
    /// Frames passed to the RTP sender.
    public var framesForwarded: Int
    /// Frames that came before the connection was ready.
    public var framesDroppedBeforeReady: Int
    /// Delta frames after ready, before the first keyframe (a peer cannot decode them).
    public var framesDroppedAwaitingKeyframe: Int
    /// When the first frame's last packet left (`MonotonicClock`), nil before.
    public var firstFrameSentNs: Int64?
    /// The RTP sender's latest running figures (RTCP heard, RTT, target rate).
    public var sender: SenderStatistics?
    /// Packets and bytes through the connection, once `finish` has returned.
    public var transport: UDPTransportStatistics?

    /// From DTLS done to the first keyframe on the wire, in ms.
    public var firstKeyframeMs: Double? {
        ConnectionTimeline.span(connection.timeline.dtlsConnectedNs, firstFrameSentNs)
    }
}
