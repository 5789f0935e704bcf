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
        var flags = dependencies.map(Self.flags(for:)) ?? 0
        if keyframeRequested.exchange(false, ordering: .relaxed) || isKeyframeDue(at: frame.timestampNs) {
            flags = vpx_enc_frame_flags_t(VPX_EFLAG_FORCE_KF)
        }
        if let dependencies {
            try control("VP8E_SET_TEMPORAL_LAYER_ID", vpx_codec_control_VP8E_SET_TEMPORAL_LAYER_ID(
                &context, id(VP8E_SET_TEMPORAL_LAYER_ID), Int32(dependencies.layer)))
        }

        let buffer = frame.buffer
        image.planes.0 = buffer.dataY
        image.planes.1 = buffer.dataU
        image.planes.2 = buffer.dataV
        image.stride.0 = Int32(buffer.strideY)
        image.stride.1 = Int32(buffer.strideU)
        image.stride.2 = Int32(buffer.strideV)
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

    /// libwebrtc's `EncodeFlags`: what a frame may not reference or refresh.
    private static func flags(for dependencies: VP8FrameDependencies) -> vpx_enc_frame_flags_t {
        var flags: Int32 = 0
        if !dependencies.references.contains(.last) { flags |= VP8_EFLAG_NO_REF_LAST }
        if !dependencies.updates.contains(.last) { flags |= VP8_EFLAG_NO_UPD_LAST }
        if !dependencies.references.contains(.golden) { flags |= VP8_EFLAG_NO_REF_GF }
        if !dependencies.updates.contains(.golden) { flags |= VP8_EFLAG_NO_UPD_GF }
        if !dependencies.references.contains(.altref) { flags |= VP8_EFLAG_NO_REF_ARF }
        if !dependencies.updates.contains(.altref) { flags |= VP8_EFLAG_NO_UPD_ARF }
        if dependencies.freezesEntropy { flags |= VP8_EFLAG_NO_UPD_ENTROPY }
        return vpx_enc_frame_flags_t(flags)
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
        if let temporalLayers { Self.setLayerTargets(temporalLayers.cumulativeLayerKbps(total: kbps), in: &config) }
        let result = vpx_codec_enc_config_set(&context, &config)
        guard result == VPX_CODEC_OK else { throw VPXError("vpx_codec_enc_config_set", result, context: &context) }
        logger.debug("VP8 bitrate now \(kbps) kbit/s")
    }

    private func open() throws(VPXError) {
        let interface = vpx_codec_vp8_cx()
        var result = vpx_codec_enc_config_default(interface, &config, 0)
        guard result == VPX_CODEC_OK else { throw VPXError("vpx_codec_enc_config_default", result) }
        let threads = settings.threads ?? VP8EncoderSettings.defaultThreads(
            width: format.width, height: format.height, cores: ProcessInfo.processInfo.activeProcessorCount)
        config.g_w = UInt32(format.width)
        config.g_h = UInt32(format.height)
        config.g_timebase = vpx_rational(num: 1, den: 90_000)
        config.g_threads = UInt32(threads)
        config.g_lag_in_frames = 0
        config.g_pass = VPX_RC_ONE_PASS
        config.g_error_resilient = settings.errorResilient || settings.temporalLayers > 1
            ? vpx_codec_er_flags_t(VPX_ERROR_RESILIENT_DEFAULT) : 0
        config.rc_end_usage = settings.rateControl == .constant ? VPX_CBR : VPX_VBR
        config.rc_target_bitrate = UInt32(settings.bitrateKbps)
        config.rc_min_quantizer = UInt32(settings.minQuantizer)
        config.rc_max_quantizer = UInt32(settings.maxQuantizer)
        config.rc_undershoot_pct = UInt32(settings.undershootPercent)
        config.rc_overshoot_pct = UInt32(settings.overshootPercent)
        config.rc_buf_initial_sz = UInt32(settings.bufferInitialMs)
        config.rc_buf_optimal_sz = UInt32(settings.bufferOptimalMs)
        config.rc_buf_sz = UInt32(settings.bufferSizeMs)
        config.rc_dropframe_thresh = UInt32(settings.dropFrameThreshold)
        config.rc_resize_allowed = 0
        config.kf_mode = VPX_KF_AUTO
        config.kf_min_dist = 0
        config.kf_max_dist = 3000
        temporalLayers = settings.temporalLayers > 1 ? VP8TemporalLayers(layerCount: settings.temporalLayers) : nil
        if let temporalLayers { Self.configure(temporalLayers, bitrateKbps: settings.bitrateKbps, in: &config) }

        result = vpx_codec_enc_init_ver(&context, interface, &config, 0, CAMRTP_VPX_ENCODER_ABI_VERSION)
        guard result == VPX_CODEC_OK else { throw VPXError("vpx_codec_enc_init", result, context: &context) }
        isOpen = true
        // The typed helpers take the control id again, after the context.
        try control("VP8E_SET_CPUUSED", vpx_codec_control_VP8E_SET_CPUUSED(
            &context, id(VP8E_SET_CPUUSED), Int32(settings.cpuUsed)))
        try control("VP8E_SET_STATIC_THRESHOLD", vpx_codec_control_VP8E_SET_STATIC_THRESHOLD(
            &context, id(VP8E_SET_STATIC_THRESHOLD), UInt32(settings.staticThreshold)))
        try control("VP8E_SET_NOISE_SENSITIVITY", vpx_codec_control_VP8E_SET_NOISE_SENSITIVITY(
            &context, id(VP8E_SET_NOISE_SENSITIVITY), UInt32(settings.noiseSensitivity)))
        try control("VP8E_SET_TOKEN_PARTITIONS", vpx_codec_control_VP8E_SET_TOKEN_PARTITIONS(
            &context, id(VP8E_SET_TOKEN_PARTITIONS), Int32(VP8_ONE_TOKENPARTITION.rawValue)))
        // 0 is libvpx's "no cap".
        let maxIntraPercent = settings.capsKeyframeSize ? settings.maxIntraBitratePercent(frameRate: format.frameRate) : 0
        try control("VP8E_SET_MAX_INTRA_BITRATE_PCT", vpx_codec_control_VP8E_SET_MAX_INTRA_BITRATE_PCT(
            &context, id(VP8E_SET_MAX_INTRA_BITRATE_PCT), UInt32(maxIntraPercent)))

        image = vpx_image_t()
        image.fmt = VPX_IMG_FMT_I420
        image.w = UInt32(format.width)
        image.h = UInt32(format.height)
        image.d_w = image.w
        image.d_h = image.h
        image.x_chroma_shift = 1
        image.y_chroma_shift = 1
        image.bps = 12
        nextPts = 0
        lastKeyframeNs = nil
        logger.debug("VP8 open: \(format.width)x\(format.height) \(settings.bitrateKbps) kbit/s cpu-used \(settings.cpuUsed) threads \(threads)")
    }

    /// libvpx's temporal scalability settings for `layers`, as libwebrtc's
    /// `DefaultTemporalLayers::UpdateConfiguration` fills them.
    private static func configure(_ layers: VP8TemporalLayers, bitrateKbps: Int, in config: inout vpx_codec_enc_cfg_t) {
        config.ts_number_layers = UInt32(layers.layerCount)
        config.ts_periodicity = UInt32(layers.layerIDs.count)
        withUnsafeMutableBytes(of: &config.ts_rate_decimator) { bytes in
            for (index, decimator) in layers.rateDecimators.enumerated() { bytes.storeBytes(of: UInt32(decimator), toByteOffset: index * 4, as: UInt32.self) }
        }
        withUnsafeMutableBytes(of: &config.ts_layer_id) { bytes in
            for (index, layer) in layers.layerIDs.enumerated() { bytes.storeBytes(of: UInt32(layer), toByteOffset: index * 4, as: UInt32.self) }
        }
        setLayerTargets(layers.cumulativeLayerKbps(total: bitrateKbps), in: &config)
    }

    private static func setLayerTargets(_ kbps: [Int], in config: inout vpx_codec_enc_cfg_t) {
        withUnsafeMutableBytes(of: &config.ts_target_bitrate) { bytes in
            for (index, rate) in kbps.enumerated() { bytes.storeBytes(of: UInt32(rate), toByteOffset: index * 4, as: UInt32.self) }
        }
    }

    private func id(_ control: vp8e_enc_control_id) -> Int32 { Int32(control.rawValue) }

    private func control(_ name: String, _ result: vpx_codec_err_t) throws(VPXError) {
        guard result == VPX_CODEC_OK else { throw VPXError(name, result, context: &context) }
    }
}
