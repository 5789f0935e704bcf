import CVPX
import FoundationEssentials
import Glibc
import Logging
import MediaCore
import Synchronization

/// VP8 over libvpx in real-time mode, configured as libwebrtc configures it for a stream, or as
/// libvpx's defaults are for a file (`VP8EncoderSettings.recording`).
///
/// `encode` runs on one thread at a time (the pipeline's encoder thread). `requestKeyframe()`
/// and `setBitrate(kbps:)` may be called from any thread; they take effect on the next frame,
/// the bitrate through `vpx_codec_enc_config_set`, without re-initialising. A frame of a new
/// size re-initialises the encoder and starts with a keyframe.
public final class VP8Encoder: @unchecked Sendable {
    public private(set) var settings: VP8EncoderSettings
    /// The size it codes now and the rate it was opened for.
    public private(set) var format: VP8PictureFormat
    private let logger: Logger
    private var context = vpx_codec_ctx_t()
    private var config = vpx_codec_enc_cfg_t()
    private var image = vpx_image_t()
    private var isOpen = false
    /// The next frame's presentation time in 90 kHz ticks.
    private var nextPts: Int64 = 0
    private var lastKeyframeNs: Int64?
    /// The frames' layers and dependencies with two or three temporal layers.
    private var temporalLayers: VP8TemporalLayers?
    private let keyframeRequested = Atomic<Bool>(false)
    private let pendingBitrateKbps = Atomic<Int>(0)
    private let currentTargetKbps: Atomic<Int>

    /// Opens libvpx for pictures of `format`; a frame of another size later re-initialises it.
    public init(settings: VP8EncoderSettings, format: VP8PictureFormat, logger: Logger = Logger(label: "camrtp.vp8")) throws(VPXError) {
        try settings.validate()
        try format.validate()
        self.settings = settings
        self.format = format
        self.logger = logger
        currentTargetKbps = Atomic(settings.bitrateKbps)
        try open()
    }

    deinit {
        if isOpen { vpx_codec_destroy(&context) }
    }

    /// The next encoded frame will be a keyframe.
    public func requestKeyframe() {
        keyframeRequested.store(true, ordering: .relaxed)
    }

    /// Changes the target bitrate from the next frame on.
    public func setBitrate(kbps: Int) {
        pendingBitrateKbps.store(max(1, kbps), ordering: .relaxed)
        currentTargetKbps.store(max(1, kbps), ordering: .relaxed)
    }

    /// The bitrate rate control aims at from the next frame on: the last `setBitrate`, else the
    /// settings'. Safe to read from any thread.
    public var targetBitrateKbps: Int { currentTargetKbps.load(ordering: .relaxed) }

    /// Encodes one picture. Returns nil when rate control dropped it to hold the bitrate.
    public func encode(_ frame: VideoFrame) throws(VPXError) -> EncodedFrame? {
        if frame.width != format.width || frame.height != format.height {
            logger.info("re-initialising VP8 for \(frame.width)x\(frame.height)")
            vpx_codec_destroy(&context)
            isOpen = false
            format.width = frame.width
            format.height = frame.height
            try open()
        }
        try applyPendingBitrate()

        // Every frame lasts one nominal interval, as libwebrtc tells libvpx: a frame that follows
        // a gap (frames dropped before encoding while the network was congested) must not get
        // the whole gap's worth of bits, or rate control overshoots and then starves the stream.
        let duration = max(1, Int64((90_000 / format.frameRate).rounded()))
        let pts = nextPts

        let dependencies = temporalLayers?.nextFrame()
        var flags = dependencies.map(VP8EncoderSettings.frameFlags(for:)) ?? 0
        if keyframeRequested.exchange(false, ordering: .relaxed) || isKeyframeDue(at: frame.timestampNs) {
            flags = vpx_enc_frame_flags_t(VPX_EFLAG_FORCE_KF)
        }
        if let dependencies {
            try vpxCheck("VP8E_SET_TEMPORAL_LAYER_ID", &context, vpx_codec_control_VP8E_SET_TEMPORAL_LAYER_ID(
                &context, vpxControlID(VP8E_SET_TEMPORAL_LAYER_ID), Int32(dependencies.layer)))
        }

        let buffer = frame.buffer
        vpxSetPlanes(of: &image, to: buffer)
        let result = withExtendedLifetime(buffer) {
            vpx_codec_encode(&context, &image, vpx_codec_pts_t(pts), UInt(duration), flags, UInt(VPX_DL_REALTIME))
        }
        guard result == VPX_CODEC_OK else { throw VPXError("vpx_codec_encode", result, context: &context) }
        nextPts = pts + duration

        var iterator: vpx_codec_iter_t? = nil
        var encoded: EncodedFrame?
        while let packet = vpx_codec_get_cx_data(&context, &iterator) {
            guard packet.pointee.kind == VPX_CODEC_CX_FRAME_PKT else { continue }
            let data = packet.pointee.data.frame
            let isKeyframe = data.flags & vpx_codec_frame_flags_t(VPX_FRAME_IS_KEY) != 0
            if isKeyframe { lastKeyframeNs = frame.timestampNs }
            encoded = EncodedFrame(
                data: [UInt8](UnsafeRawBufferPointer(start: data.buf, count: data.sz)),
                width: format.width, height: format.height, timestampNs: frame.timestampNs,
                rotation: frame.rotation, isKeyframe: isKeyframe,
                isDroppable: data.flags & vpx_codec_frame_flags_t(VPX_FRAME_IS_DROPPABLE) != 0,
                temporalLayer: temporalLayers?.frameEncoded(isKeyframe: isKeyframe))
        }
        if encoded == nil { temporalLayers?.frameDropped() }
        return encoded
    }

    private func isKeyframeDue(at timestampNs: Int64) -> Bool {
        guard case .every(let interval) = settings.keyframes, let last = lastKeyframeNs else { return false }
        // Half a frame of slack, so 30 frames at 30 fps count as a full second.
        return Double(timestampNs - last) >= interval * 1e9 - 0.5e9 / format.frameRate
    }

    private func applyPendingBitrate() throws(VPXError) {
        let kbps = pendingBitrateKbps.exchange(0, ordering: .relaxed)
        guard kbps > 0, kbps != settings.bitrateKbps else { return }
        settings.bitrateKbps = kbps
        config.rc_target_bitrate = UInt32(kbps)
        if let temporalLayers { VP8EncoderSettings.setLayerTargets(temporalLayers.cumulativeLayerKbps(total: kbps), in: &config) }
        let result = vpx_codec_enc_config_set(&context, &config)
        guard result == VPX_CODEC_OK else { throw VPXError("vpx_codec_enc_config_set", result, context: &context) }
        logger.debug("VP8 bitrate now \(kbps) kbit/s")
    }

    private func open() throws(VPXError) {
        let threads = settings.threads ?? VP8EncoderSettings.defaultThreads(
            width: format.width, height: format.height, cores: ProcessInfo.processInfo.activeProcessorCount)
        temporalLayers = settings.temporalLayers > 1 ? VP8TemporalLayers(layerCount: settings.temporalLayers) : nil
        config = try settings.libvpxConfiguration(
            width: format.width, height: format.height, bitrateKbps: settings.bitrateKbps, threads: threads,
            temporalLayers: temporalLayers)
        let result = vpx_codec_enc_init_ver(&context, vpx_codec_vp8_cx(), &config, 0, CAMRTP_VPX_ENCODER_ABI_VERSION)
        guard result == VPX_CODEC_OK else { throw VPXError("vpx_codec_enc_init", result, context: &context) }
        isOpen = true
        try settings.applyControls(to: &context, frameRate: format.frameRate)
        image = vpxImageHeader(width: format.width, height: format.height)
        nextPts = 0
        lastKeyframeNs = nil
        logger.debug("VP8 open: \(format.width)x\(format.height) \(settings.bitrateKbps) kbit/s cpu-used \(settings.cpuUsed) threads \(threads)")
    }
}
