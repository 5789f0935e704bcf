/// Why a frame did not reach the wire. Every captured frame is either encoded or counted under
/// exactly one of these, so the books balance at the end of a run.
public enum FrameDropReason: String, Sendable, CaseIterable, Codable {
    /// The driver flagged the buffer `V4L2_BUF_FLAG_ERROR`, or it was shorter than the format needs.
    case errorBuffer
    /// The captured bytes could not be converted to I420 (a corrupt MJPEG frame, say).
    case conversionFailed
    /// Every pooled picture was still in use downstream.
    case poolExhausted
    /// The frame arrived before its slot on the frame-rate grid.
    case fpsCap
    /// A newer frame replaced it before the encoder took it.
    case late
    /// It was older than the latency bound when the encoder took it.
    case tooOld
    /// libvpx's rate control dropped it to hold the bitrate.
    case encoderDrop
    /// The network held more than its congestion window, so it was dropped before encoding.
    case congestion
    /// It was still in flight when the pipeline stopped.
    case shutdown
}
