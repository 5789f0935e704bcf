import MediaCore

/// Picks a capture format and rate the way WebRTC's capture controller and Chromium do.
public enum CameraFormatSelection {
    /// The rate used when neither the format nor the caller says otherwise.
    public static let defaultFrameRate: Double = 30

    /// Above this size raw formats saturate USB 2, so MJPEG wins when raw cannot keep the rate
    /// (Chromium's `kMjpegWidth` × `kMjpegHeight`).
    public static let mjpegPreferenceThreshold = (width: 640, height: 480)

    /// Pixel formats in order of preference: cheapest to bring to I420 first, MJPEG (a decode)
    /// last.
    public static let defaultPixelFormatPreference: [PixelFormat] = [.i420, .nv12, .nv21, .yuyv, .uyvy, .mjpeg, .rgb24, .bgra]

    /// The format closest to `width × height`: the smallest |Δw| + |Δh|. On a tie native formats
    /// beat libv4l2-emulated ones; above 640×480 one that reaches `frameRate` beats one that
    /// cannot; then the earlier pixel format in `preference` wins.
    public static func closestFormat(
        in formats: [CameraFormat], width: Int, height: Int, frameRate: Double = defaultFrameRate,
        preference: [PixelFormat] = defaultPixelFormatPreference
    ) -> CameraFormat? {
        let favourRate = width * height > mjpegPreferenceThreshold.width * mjpegPreferenceThreshold.height
        func rank(_ format: CameraFormat) -> (Int, Int, Int, Int) {
            let distance = abs(format.width - width) + abs(format.height - height)
            let reachesRate = (format.maxFrameRate ?? frameRate) >= frameRate - 0.01
            return (
                distance, format.isEmulated ? 1 : 0, favourRate && !reachesRate ? 1 : 0,
                preference.firstIndex(of: format.pixelFormat) ?? preference.count
            )
        }
        return formats.min { rank($0) < rank($1) }
    }

    /// The rate to ask for: `min(format's highest rate, limit)`, the limit defaulting to 30 fps
    /// as WebRTC's capture controller does.
    public static func frameRate(for format: CameraFormat, limit: Double? = nil) -> Double {
        let cap = limit ?? defaultFrameRate
        return min(format.maxFrameRate ?? cap, cap)
    }
}
