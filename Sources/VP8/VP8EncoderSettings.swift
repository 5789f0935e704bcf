/// What the VP8 encoder is asked to do. The defaults are libwebrtc's real-time settings for a
/// single VP8 stream (`LibvpxVp8Encoder::InitEncode` and `InitAndSetControlSettings`).
public struct VP8EncoderSettings: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// The highest frame rate expected; sizes the intra-frame bitrate cap.
    public var maxFramerate: Double
    public var bitrateKbps: Int
    /// libvpx `cpu-used`: −6 is WebRTC's choice on x86. Negative values spend at most the real
    /// time they are given; positive ones aim at a fraction of the frame time.
    public var cpuUsed: Int
    /// Encoder threads; nil picks by resolution and core count as WebRTC does.
    public var threads: Int?
    /// Force a keyframe at least this often; nil leaves keyframes to requests (and libvpx's
    /// 3000-frame maximum distance), as WebRTC does when receivers can ask for them.
    public var keyframeIntervalSeconds: Double?
    /// libvpx temporal denoiser: 4 (adaptive) is WebRTC's choice on x86, 0 turns it off.
    public var noiseSensitivity: Int
    public var staticThreshold: Int
    public var minQuantizer: Int
    public var maxQuantizer: Int
    public var undershootPercent: Int
    public var overshootPercent: Int
    public var bufferInitialMs: Int
    public var bufferOptimalMs: Int
    public var bufferSizeMs: Int
    /// Rate control may drop a frame when the buffer falls below this percentage.
    public var dropFrameThreshold: Int
    /// Code each frame to survive the loss of earlier ones; WebRTC enables it only with
    /// temporal layers.
    public var errorResilient: Bool

    public init(
        width: Int, height: Int, maxFramerate: Double = 30, bitrateKbps: Int = 1500,
        cpuUsed: Int = -6, threads: Int? = nil, keyframeIntervalSeconds: Double? = nil
    ) {
        self.width = width
        self.height = height
        self.maxFramerate = maxFramerate
        self.bitrateKbps = bitrateKbps
        self.cpuUsed = cpuUsed
        self.threads = threads
        self.keyframeIntervalSeconds = keyframeIntervalSeconds
        noiseSensitivity = 4
        staticThreshold = 1
        minQuantizer = 2
        maxQuantizer = 56
        undershootPercent = 100
        overshootPercent = 15
        bufferInitialMs = 500
        bufferOptimalMs = 600
        bufferSizeMs = 1000
        dropFrameThreshold = 30
        errorResilient = false
    }

    /// WebRTC's `NumberOfThreads`: one below VGA, two above it with three or more cores, and more
    /// only for 1080p-class pictures on big machines.
    public static func defaultThreads(width: Int, height: Int, cores: Int) -> Int {
        let pixels = width * height
        if pixels >= 1920 * 1080 && cores > 8 { return 8 }
        if pixels > 1280 * 960 && cores >= 6 { return 3 }
        if pixels > 640 * 480 && cores >= 3 { return 2 }
        return 1
    }

    /// WebRTC's `MaxIntraTarget`: a keyframe may use this percentage of the per-frame bitrate,
    /// half the optimal buffer's worth of frames, and never less than 300 %.
    public var maxIntraBitratePercent: Int {
        max(300, Int(Double(bufferOptimalMs) * 0.5 * maxFramerate / 10))
    }
}
