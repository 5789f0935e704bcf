/// The clockwise rotation, in degrees, that a receiver must apply to show a frame upright,
/// as in WebRTC's `RTCVideoRotation`.
public enum VideoRotation: Int, Sendable, CaseIterable, Codable {
    case deg0 = 0
    case deg90 = 90
    case deg180 = 180
    case deg270 = 270

    /// Accepts 0, 90, 180 and 270, and any multiple of 90 that reduces to them.
    public init?(degrees: Int) {
        guard degrees % 90 == 0 else { return nil }
        self.init(rawValue: ((degrees % 360) + 360) % 360)
    }

    public var degrees: Int { rawValue }

    /// True for 90 and 270: applying the rotation swaps width and height.
    public var swapsDimensions: Bool { self == .deg90 || self == .deg270 }

    /// The rotation that is this one followed by `other`.
    public func adding(_ other: VideoRotation) -> VideoRotation {
        VideoRotation(rawValue: (rawValue + other.rawValue) % 360)!
    }
}
