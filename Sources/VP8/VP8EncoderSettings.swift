/// When the encoder makes keyframes on its own, besides those asked for.
public enum KeyframeSchedule: Sendable, Equatable {
    /// Only when asked (a receiver's PLI or FIR, or the application), and at libvpx's maximum
    /// distance of 3000 frames: what WebRTC does when receivers can ask.
    case onRequest
    /// At least every `seconds` (for plain receivers, which cannot ask); must be positive.
    case every(seconds: Double)
}

/// How rate control holds the target bitrate.
public enum VP8RateControl: Sendable, Equatable {
    /// Constant bitrate against the buffer model (`VPX_CBR`): every second of a live stream must
    /// fit the network, so a frame's share is what the buffer allows.
    case constant
    /// Variable bitrate (`VPX_VBR`): the target is an average, and a hard picture may take more
    /// than its share, as a file can afford.
    case variable
}

/// How the VP8 encoder codes, whatever the picture: libwebrtc's real-time settings for a single
/// VP8 stream (`LibvpxVp8Encoder::InitEncode` and `InitAndSetControlSettings`) by default, and
/// `recording(...)` for a file. The picture's size and rate come with the frames
/// (`VP8PictureFormat`).
public struct VP8EncoderSettings: Sendable, Equatable {
    /// The target in kbit/s at the start; a sender may change it while running.
    public var bitrateKbps: Int
    /// CBR for a stream, VBR for a file.
    public var rateControl: VP8RateControl
    /// libvpx `cpu-used`: −6 is WebRTC's choice on x86. Negative values spend at most the real
    /// time they are given; positive ones aim at a fraction of the frame time.
    public var cpuUsed: Int
    /// Encoder threads; nil picks by resolution and core count as WebRTC does.
    public var threads: Int?
    public var keyframes: KeyframeSchedule
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
    /// Rate control may drop a frame when the buffer falls below this percentage; 0 never drops
    /// (what a file recorder wants: every frame kept, as vpxenc does).
    public var dropFrameThreshold: Int
    /// Code each frame to survive the loss of earlier ones; WebRTC enables it only with
    /// temporal layers, and so does the encoder whatever this says.
    public var errorResilient: Bool
    /// Temporal layers, 1...3: with more than one, frames follow libwebrtc's default pattern
    /// (`VP8TemporalLayers`) and each carries its layer, so a receiver or a forwarder may take
    /// only the lower layers at a lower frame rate.
    public var temporalLayers: Int
    /// Cap a keyframe at `maxIntraBitratePercent(frameRate:)` of a frame's share, as WebRTC does
    /// so that a keyframe does not hold up the frames behind it on the network.
    public var capsKeyframeSize: Bool

    /// WebRTC's settings for a live stream.
    public init(bitrateKbps: Int = 1500, cpuUsed: Int = -6, threads: Int? = nil, keyframes: KeyframeSchedule = .onRequest) {
        self.bitrateKbps = bitrateKbps
        self.cpuUsed = cpuUsed
        self.threads = threads
        self.keyframes = keyframes
        rateControl = .constant
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
        temporalLayers = 1
        capsKeyframeSize = true
    }

    /// For a file: nothing waits for a frame, so nothing needs a live stream's constraints.
    /// libvpx's own defaults for one-pass encoding (`vpx_codec_enc_config_default`, what vpxenc
    /// `--rt` and ffmpeg's libvpx use): variable bitrate over a 6 s buffer, quantizer 4–63, no
    /// frame dropped, keyframes uncapped, no denoiser and no static threshold (a clean source
    /// keeps its detail; a noisy camera can ask for `noiseSensitivity`). The real-time deadline,
    /// cpu-used and threads are a stream's, so a camera is recorded as fast as it streams.
    public static func recording(
        bitrateKbps: Int = 1500, cpuUsed: Int = -6, threads: Int? = nil, keyframes: KeyframeSchedule = .onRequest
    ) -> VP8EncoderSettings {
        var settings = VP8EncoderSettings(bitrateKbps: bitrateKbps, cpuUsed: cpuUsed, threads: threads, keyframes: keyframes)
        settings.rateControl = .variable
        settings.noiseSensitivity = 0
        settings.staticThreshold = 0
        settings.minQuantizer = 4
        settings.maxQuantizer = 63
        settings.undershootPercent = 100
        settings.overshootPercent = 100
        settings.bufferInitialMs = 4000
        settings.bufferOptimalMs = 5000
        settings.bufferSizeMs = 6000
        settings.dropFrameThreshold = 0
        settings.capsKeyframeSize = false
        return settings
    }

    /// Checks the values libvpx would refuse or misread, with the reason in words.
    public func validate() throws(VPXError) {
        guard bitrateKbps > 0 else {
            throw VPXError("vpx_codec_enc_init", message: "the bitrate must be positive, not \(bitrateKbps) kbit/s")
        }
        if case .every(let seconds) = keyframes, !(seconds > 0 && seconds.isFinite) {
            throw VPXError("vpx_codec_enc_init", message: "a keyframe interval must be a positive number of seconds, not \(seconds); use .onRequest for none")
        }
        guard (-16...16).contains(cpuUsed) else {
            throw VPXError("vpx_codec_enc_init", message: "cpu-used must be in -16...16, not \(cpuUsed)")
        }
        if let threads, !(1...64).contains(threads) {
            throw VPXError("vpx_codec_enc_init", message: "encoder threads must be 1...64, not \(threads)")
        }
        guard VP8TemporalLayers.supportedLayerCounts.contains(temporalLayers) else {
            throw VPXError("vpx_codec_enc_init", message: "temporal layers must be 1...3, not \(temporalLayers)")
        }
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
    public func maxIntraBitratePercent(frameRate: Double) -> Int {
        max(300, Int(Double(bufferOptimalMs) * 0.5 * frameRate / 10))
    }
}

/// The pictures an encoder is opened for: size and the highest frame rate expected.
public struct VP8PictureFormat: Sendable, Equatable {
    /// VP8 codes 1...16383 pixels a side (RFC 6386 §9.1: 14-bit sizes).
    public static let sideRange = 1...16_383

    public var width: Int
    public var height: Int
    public var frameRate: Double

    public init(width: Int, height: Int, frameRate: Double = 30) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
    }

    public func validate() throws(VPXError) {
        guard Self.sideRange.contains(width), Self.sideRange.contains(height) else {
            throw VPXError("vpx_codec_enc_init", message: "VP8 cannot encode \(width)x\(height); sides run 1...16383")
        }
        guard frameRate > 0, frameRate.isFinite else {
            throw VPXError("vpx_codec_enc_init", message: "\(frameRate) is not a frame rate")
        }
    }
}
