import CongestionControl
import MediaCore

/// What a `SendSession` asks of the encoder.
public enum EncoderCommand: Sendable, Equatable {
    /// The encoding's next frame is a keyframe: a receiver lost its picture (PLI, FIR).
    case keyframe(encodingIndex: Int)
    /// Encode at this rate from the next frame on, in kbit/s.
    case targetBitrate(kbps: Int)
    /// Drop frames before encoding while true: more than the congestion window is in flight.
    case networkCongested(Bool)
    /// The padding probe asked for (`SendSession.setPaddingProbe`) lost packets: the path does
    /// not carry its rate.
    case paddingProbeFailed
}

/// What a `SendSession` produced besides packets and reports, in order.
public enum SessionOutput: Sendable {
    case encoder(EncoderCommand)
    case sink(SinkEvent)
    /// The congestion controller's state after an update, for `--trace-bwe`.
    case trace(BWETraceRecord)
}
