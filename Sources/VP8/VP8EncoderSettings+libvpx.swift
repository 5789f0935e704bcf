import CVPX
import MediaCore

/// The libvpx side of `VP8EncoderSettings`, shared by `VP8Encoder` and `VP8SimulcastEncoder`:
/// the configuration and the controls libwebrtc's `LibvpxVp8Encoder::InitEncode` and
/// `InitAndSetControlSettings` set for each stream.
extension VP8EncoderSettings {
    /// libvpx's configuration for one stream of `width`×`height` at `bitrateKbps`, coded with
    /// `threads` threads and `temporalLayers`' pattern when there is one.
    func libvpxConfiguration(
        width: Int, height: Int, bitrateKbps: Int, threads: Int, temporalLayers: VP8TemporalLayers?
    ) throws(VPXError) -> vpx_codec_enc_cfg_t {
        var config = vpx_codec_enc_cfg_t()
        let result = vpx_codec_enc_config_default(vpx_codec_vp8_cx(), &config, 0)
        guard result == VPX_CODEC_OK else { throw VPXError("vpx_codec_enc_config_default", result) }
        config.g_w = UInt32(width)
        config.g_h = UInt32(height)
        config.g_timebase = vpx_rational(num: 1, den: 90_000)
        config.g_threads = UInt32(threads)
        config.g_lag_in_frames = 0
        config.g_pass = VPX_RC_ONE_PASS
        config.g_error_resilient = errorResilient || temporalLayers != nil
            ? vpx_codec_er_flags_t(VPX_ERROR_RESILIENT_DEFAULT) : 0
        config.rc_end_usage = rateControl == .constant ? VPX_CBR : VPX_VBR
        config.rc_target_bitrate = UInt32(bitrateKbps)
        config.rc_min_quantizer = UInt32(minQuantizer)
        config.rc_max_quantizer = UInt32(maxQuantizer)
        config.rc_undershoot_pct = UInt32(undershootPercent)
        config.rc_overshoot_pct = UInt32(overshootPercent)
        config.rc_buf_initial_sz = UInt32(bufferInitialMs)
        config.rc_buf_optimal_sz = UInt32(bufferOptimalMs)
        config.rc_buf_sz = UInt32(bufferSizeMs)
        config.rc_dropframe_thresh = UInt32(dropFrameThreshold)
        config.rc_resize_allowed = 0
        config.kf_mode = VPX_KF_AUTO
        config.kf_min_dist = 0
        config.kf_max_dist = 3000
        if let temporalLayers { Self.configure(temporalLayers, bitrateKbps: bitrateKbps, in: &config) }
        return config
    }

    /// The per-context controls, after `vpx_codec_enc_init`: speed, static threshold, denoiser,
    /// one token partition, and the keyframe cap for `frameRate`.
    func applyControls(to context: UnsafeMutablePointer<vpx_codec_ctx_t>, frameRate: Double) throws(VPXError) {
        // The typed helpers take the control id again, after the context.
        try vpxCheck("VP8E_SET_CPUUSED", context, vpx_codec_control_VP8E_SET_CPUUSED(
            context, vpxControlID(VP8E_SET_CPUUSED), Int32(cpuUsed)))
        try vpxCheck("VP8E_SET_STATIC_THRESHOLD", context, vpx_codec_control_VP8E_SET_STATIC_THRESHOLD(
            context, vpxControlID(VP8E_SET_STATIC_THRESHOLD), UInt32(staticThreshold)))
        try vpxCheck("VP8E_SET_NOISE_SENSITIVITY", context, vpx_codec_control_VP8E_SET_NOISE_SENSITIVITY(
            context, vpxControlID(VP8E_SET_NOISE_SENSITIVITY), UInt32(noiseSensitivity)))
        try vpxCheck("VP8E_SET_TOKEN_PARTITIONS", context, vpx_codec_control_VP8E_SET_TOKEN_PARTITIONS(
            context, vpxControlID(VP8E_SET_TOKEN_PARTITIONS), Int32(VP8_ONE_TOKENPARTITION.rawValue)))
        // 0 is libvpx's "no cap".
        let maxIntraPercent = capsKeyframeSize ? maxIntraBitratePercent(frameRate: frameRate) : 0
        try vpxCheck("VP8E_SET_MAX_INTRA_BITRATE_PCT", context, vpx_codec_control_VP8E_SET_MAX_INTRA_BITRATE_PCT(
            context, vpxControlID(VP8E_SET_MAX_INTRA_BITRATE_PCT), UInt32(maxIntraPercent)))
    }

    /// libwebrtc's `EncodeFlags`: what a frame may not reference or refresh.
    static func frameFlags(for dependencies: VP8FrameDependencies) -> vpx_enc_frame_flags_t {
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

    /// libvpx's temporal scalability settings for `layers`, as libwebrtc's
    /// `DefaultTemporalLayers::UpdateConfiguration` fills them.
    static func configure(_ layers: VP8TemporalLayers, bitrateKbps: Int, in config: inout vpx_codec_enc_cfg_t) {
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

    static func setLayerTargets(_ kbps: [Int], in config: inout vpx_codec_enc_cfg_t) {
        withUnsafeMutableBytes(of: &config.ts_target_bitrate) { bytes in
            for (index, rate) in kbps.enumerated() { bytes.storeBytes(of: UInt32(rate), toByteOffset: index * 4, as: UInt32.self) }
        }
    }
}

/// An I420 `vpx_image_t` header for pictures of `width`×`height`; the planes are set per frame.
func vpxImageHeader(width: Int, height: Int) -> vpx_image_t {
    var image = vpx_image_t()
    image.fmt = VPX_IMG_FMT_I420
    image.w = UInt32(width)
    image.h = UInt32(height)
    image.d_w = image.w
    image.d_h = image.h
    image.x_chroma_shift = 1
    image.y_chroma_shift = 1
    image.bps = 12
    return image
}

/// Points `image` at `buffer`'s planes; the buffer must outlive the encode call.
func vpxSetPlanes(of image: inout vpx_image_t, to buffer: I420Buffer) {
    image.planes.0 = buffer.dataY
    image.planes.1 = buffer.dataU
    image.planes.2 = buffer.dataV
    image.stride.0 = Int32(buffer.strideY)
    image.stride.1 = Int32(buffer.strideU)
    image.stride.2 = Int32(buffer.strideV)
}

func vpxControlID(_ control: vp8e_enc_control_id) -> Int32 { Int32(control.rawValue) }

func vpxCheck(_ name: String, _ context: UnsafeMutablePointer<vpx_codec_ctx_t>, _ result: vpx_codec_err_t) throws(VPXError) {
    guard result == VPX_CODEC_OK else { throw VPXError(name, result, context: context) }
}
