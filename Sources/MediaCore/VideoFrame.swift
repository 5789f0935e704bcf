/// One captured picture: its pixels, the rotation a receiver must apply to show it upright,
/// and when it was captured, in nanoseconds on `CLOCK_MONOTONIC` (`MonotonicClock`).
public struct VideoFrame: Sendable {
    public var buffer: I420Buffer
    public var rotation: VideoRotation
    public var timestampNs: Int64

    public init(buffer: I420Buffer, rotation: VideoRotation = .deg0, timestampNs: Int64) {
        self.buffer = buffer
        self.rotation = rotation
        self.timestampNs = timestampNs
    }

    public var width: Int { buffer.width }
    public var height: Int { buffer.height }
}
