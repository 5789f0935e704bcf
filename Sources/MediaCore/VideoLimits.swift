/// The largest pictures and fastest rates camrtp takes, checked where they enter (`--source`,
/// a Y4M header, `--size`), so that a value out of bounds is one clear line rather than a libvpx
/// error or gigabytes of frame buffers.
public enum VideoLimits {
    /// VP8's frame header codes each side in 14 bits (RFC 6386 §9.1).
    public static let maxSide = 16383
    /// 4096×2304 (DCI 4K and UHD fit): every stage keeps a small pool of frames, so the picture
    /// size bounds memory to some hundreds of megabytes.
    public static let maxPixels = 4096 * 2304
    /// The fastest frame rate a source may declare.
    public static let maxFrameRate = 240.0
    /// The slowest: one frame an hour, so that a frame interval always fits 64-bit nanoseconds.
    public static let minFrameRate = 1.0 / 3600

    /// Why a `width`×`height` picture is out of bounds, or nil when it is within them.
    public static func sizeProblem(width: Int, height: Int) -> String? {
        guard (1...maxSide).contains(width), (1...maxSide).contains(height) else {
            return "\(width)x\(height) has a side outside 1...\(maxSide), the most VP8 codes"
        }
        guard width * height <= maxPixels else {
            return "\(width)x\(height) is \(width * height) pixels; camrtp takes at most \(maxPixels), such as 3840x2160 or 4096x2304"
        }
        return nil
    }

    /// Why a frame rate is out of bounds, or nil when it is within them.
    public static func frameRateProblem(_ fps: Double) -> String? {
        guard fps.isFinite, fps >= minFrameRate, fps <= maxFrameRate else {
            return "\(fps) fps is outside one frame an hour to \(Int(maxFrameRate)) fps"
        }
        return nil
    }
}
