import CVPX
import FoundationEssentials
import FrameProcessing
import Logging
import MediaCore
import Synchronization

/// VP8 simulcast over libvpx's multi-resolution encoder (`vpx_codec_enc_init_multi`), as
/// libwebrtc's `LibvpxVp8Encoder` drives it: one picture in, two or three encodings out (full,
/// half and quarter size, scaled by libyuv's box filter, each from the next larger), coded in one
/// call so that each larger encoding reuses the motion search of the one below. Each encoding
/// has the stream settings of `VP8EncoderSettings` as `encodingSettings` adjusts them, its own
/// temporal layers and its share of the total bitrate from `SimulcastRateAllocator`.
///
/// libvpx orders its contexts highest resolution first; `encodingIndex` counts lowest first
/// (0 is the smallest), as RTP simulcast does.
///
/// **Keyframes per encoding.** libvpx 1.12's multi-resolution encoder codes a keyframe in one
/// encoding alone: each context takes its own `VP8E_SET_FRAME_FLAGS`, which `vp8e_encode` uses
/// when the call's flags are 0 (`vp8/vp8_cx_iface.c`), and a higher encoding whose lower one was
/// a keyframe simply stops reusing its motion vectors for that frame (`mr_low_res_mv_avail`
/// checks the reference frames match). libwebrtc nevertheless forces a keyframe in every encoding
/// when any is asked for (`LibvpxVp8Encoder::Encode`: `send_key_frame` sets
/// `VPX_EFLAG_FORCE_KF` for all streams). Here `requestKeyframe(encodingIndex:)` makes one in
/// that encoding only: a receiver's PLI on the quarter-size stream costs one small keyframe, not
/// three; `requestKeyframe()` asks every encoding for one.
///
/// **Pausing.** An encoding the allocator gives 0 gets `rc_target_bitrate` 0, which libvpx
/// takes as "skip this stream" (`vp8e_encode` returns at once and tells the encoder above not to
/// reuse its motion), so it produces nothing; when it is given a rate again its next frame is a
/// keyframe (libwebrtc's `SetStreamState`). An encoding no receiver takes
/// (`setActiveEncodings`) is allocated 0 too, so it costs no CPU.
///
/// `encode` runs on one thread at a time; `requestKeyframe`, `setBitrate(kbps:)` and
/// `setActiveEncodings` may be called
/// from any thread and take effect on the next picture. A picture of a new size re-initialises
/// the encoder with the same number of encodings.
public final class VP8SimulcastEncoder: @unchecked Sendable {
    public private(set) var settings: VP8EncoderSettings
    /// The full-size picture and the rate it was opened for.
    public private(set) var format: VP8PictureFormat
    /// The encodings, lowest first.
    public private(set) var layout: SimulcastLayout
    private let logger: Logger
    /// libvpx's arrays, highest resolution first, contiguous as `vpx_codec_enc_init_multi` wants.
    private let contexts: UnsafeMutablePointer<vpx_codec_ctx_t>
    private let configs: UnsafeMutablePointer<vpx_codec_enc_cfg_t>
    private let images: UnsafeMutablePointer<vpx_image_t>
    private let downsampling: UnsafeMutablePointer<vpx_rational>
    private let count: Int
    private var isOpen = false
    /// The scaled pictures, libvpx order from the second context on (the first codes the input).
    private var scaled: [I420Buffer] = []
    private var allocator: SimulcastRateAllocator
    /// Each encoding's bitrate in kbit/s, lowest first; 0 while paused.
    private var encodingKbps: [Int]
    private var temporalLayers: [VP8TemporalLayers?]
    private var lastKeyframeNs: [Int64?]
    private var nextPts: Int64 = 0
    /// Bit `i` set: encoding `i` (lowest first) codes its next picture as a keyframe.
    private let keyframeRequests = Atomic<Int>(0)
    private let pendingBitrateKbps = Atomic<Int>(0)
    /// Bit `i` set: encoding `i` may be sent; bit `count` set: changed since the last picture.
    private let pendingActive = Atomic<Int>(0)
    private let currentTargetKbps: Atomic<Int>

    /// Opens libvpx for `encodings` encodings of `format`'s pictures; `settings.bitrateKbps` is
    /// the total and `settings.temporalLayers` each encoding's layers.
    public init(
        settings: VP8EncoderSettings, format: VP8PictureFormat, encodings: Int, logger: Logger = Logger(label: "camrtp.vp8")
    ) throws(VPXError) {
        try settings.validate()
        try format.validate()
        guard encodings > 1 else {
            throw VPXError("vpx_codec_enc_init_multi", message: "simulcast makes 2 or 3 encodings, not \(encodings); VP8Encoder makes one")
        }
        layout = try SimulcastLayout(
            width: format.width, height: format.height, count: encodings, temporalLayers: settings.temporalLayers)
        self.settings = settings
        self.format = format
        self.logger = logger
        count = encodings
        contexts = .allocate(capacity: encodings)
        contexts.initialize(repeating: vpx_codec_ctx_t(), count: encodings)
        configs = .allocate(capacity: encodings)
        configs.initialize(repeating: vpx_codec_enc_cfg_t(), count: encodings)
        images = .allocate(capacity: encodings)
        images.initialize(repeating: vpx_image_t(), count: encodings)
        downsampling = .allocate(capacity: encodings)
        downsampling.initialize(repeating: vpx_rational(num: 1, den: 1), count: encodings)
        allocator = SimulcastRateAllocator(rates: layout.encodings.map(\.rates))
        encodingKbps = Array(repeating: 0, count: encodings)
        temporalLayers = Array(repeating: nil, count: encodings)
        lastKeyframeNs = Array(repeating: nil, count: encodings)
        currentTargetKbps = Atomic(settings.bitrateKbps)
        do {
            try open()
        } catch {
            close()
            throw error
        }
    }

    deinit {
        close()
        contexts.deallocate()
        configs.deallocate()
        images.deallocate()
        downsampling.deallocate()
    }

    /// Every encoding's next picture will be a keyframe.
    public func requestKeyframe() {
        keyframeRequests.store((1 << count) - 1, ordering: .relaxed)
    }

    /// Encoding `encodingIndex`'s next picture will be a keyframe, and only its; an index out of
    /// range asks nothing.
    public func requestKeyframe(encodingIndex: Int) {
        guard (0..<count).contains(encodingIndex) else { return }
        keyframeRequests.bitwiseOr(1 << encodingIndex, ordering: .relaxed)
    }

    /// Changes the total target from the next picture on; the allocator shares it out.
    public func setBitrate(kbps: Int) {
        pendingBitrateKbps.store(max(1, kbps), ordering: .relaxed)
        currentTargetKbps.store(max(1, kbps), ordering: .relaxed)
    }

    /// Only `encodings` (indices, lowest first) are coded from the next picture on; the others
    /// are paused as a rate of 0 pauses them, and one made active again starts with a keyframe.
    /// libwebrtc does this for an encoding whose `RtpEncodingParameters.active` is false.
    public func setActiveEncodings(_ encodings: Set<Int>) {
        let mask = encodings.filter { (0..<count).contains($0) }.reduce(0) { $0 | 1 << $1 }
        pendingActive.store(mask | 1 << count, ordering: .relaxed)
    }

    /// The total rate control aims at: the last `setBitrate`, else the settings'.
    public var targetBitrateKbps: Int { currentTargetKbps.load(ordering: .relaxed) }

    /// Each encoding's share of the total now, in kbit/s, lowest first; 0 while paused.
    public var encodingBitratesKbps: [Int] { encodingKbps }

    /// Encodes one picture into every encoding that is sent. Returns their frames lowest first,
    /// all with the picture's timestamp; an encoding that is paused, or whose rate control
    /// dropped the picture, has none.
    public func encode(_ frame: VideoFrame) throws(VPXError) -> [EncodedFrame] {
        if frame.width != format.width || frame.height != format.height {
            logger.info("re-initialising VP8 simulcast for \(frame.width)x\(frame.height)")
            let resized = try SimulcastLayout(
                width: frame.width, height: frame.height, count: count, temporalLayers: settings.temporalLayers)
            close()
            layout = resized
            format.width = frame.width
            format.height = frame.height
            let active = allocator.active
            allocator = SimulcastRateAllocator(rates: layout.encodings.map(\.rates))
            allocator.active = active
            try open()
        }
        let active = pendingActive.exchange(0, ordering: .relaxed)
        if active != 0 { allocator.active = Set((0..<count).filter { active & 1 << $0 != 0 }) }
        let pendingKbps = pendingBitrateKbps.exchange(0, ordering: .relaxed)
        if pendingKbps > 0 || active != 0 { try allocate(totalKbps: pendingKbps > 0 ? pendingKbps : settings.bitrateKbps) }

        let duration = max(1, Int64((90_000 / format.frameRate).rounded()))
        let pts = nextPts
        let requests = keyframeRequests.exchange(0, ordering: .relaxed)
        var coded = Array(repeating: false, count: count)
        for index in 0..<count where encodingKbps[index] > 0 {
            let context = contexts + (count - 1 - index)
            let dependencies = temporalLayers[index]?.nextFrame()
            var flags = dependencies.map(VP8EncoderSettings.frameFlags(for:)) ?? 0
            if requests & (1 << index) != 0 || isKeyframeDue(index, at: frame.timestampNs) {
                flags = vpx_enc_frame_flags_t(VPX_EFLAG_FORCE_KF)
            }
            try vpxCheck("VP8E_SET_FRAME_FLAGS", context, vpx_codec_control_VP8E_SET_FRAME_FLAGS(
                context, vpxControlID(VP8E_SET_FRAME_FLAGS), Int32(truncatingIfNeeded: flags)))
            if let dependencies {
                try vpxCheck("VP8E_SET_TEMPORAL_LAYER_ID", context, vpx_codec_control_VP8E_SET_TEMPORAL_LAYER_ID(
                    context, vpxControlID(VP8E_SET_TEMPORAL_LAYER_ID), Int32(dependencies.layer)))
            }
            coded[index] = true
        }

        let buffer = frame.buffer
        vpxSetPlanes(of: &images[0], to: buffer)
        do {
            for level in 1..<count {
                try I420Transform.scale(level == 1 ? buffer : scaled[level - 2], into: scaled[level - 1])
            }
        } catch {
            throw VPXError("I420Scale", message: "\(error)")
        }
        // The flags go per context (`VP8E_SET_FRAME_FLAGS`): the call's must be 0.
        let result = withExtendedLifetime(buffer) {
            vpx_codec_encode(contexts, images, vpx_codec_pts_t(pts), UInt(duration), 0, UInt(VPX_DL_REALTIME))
        }
        guard result == VPX_CODEC_OK else { throw VPXError("vpx_codec_encode", result, context: contexts) }
        nextPts = pts + duration

        var output: [EncodedFrame] = []
        output.reserveCapacity(count)
        for index in 0..<count where coded[index] {
            let encoding = layout.encodings[index]
            let context = contexts + (count - 1 - index)
            var iterator: vpx_codec_iter_t? = nil
            var encoded: EncodedFrame?
            while let packet = vpx_codec_get_cx_data(context, &iterator) {
                guard packet.pointee.kind == VPX_CODEC_CX_FRAME_PKT else { continue }
                let data = packet.pointee.data.frame
                let isKeyframe = data.flags & vpx_codec_frame_flags_t(VPX_FRAME_IS_KEY) != 0
                if isKeyframe { lastKeyframeNs[index] = frame.timestampNs }
                encoded = EncodedFrame(
                    data: [UInt8](UnsafeRawBufferPointer(start: data.buf, count: data.sz)),
                    width: encoding.width, height: encoding.height, timestampNs: frame.timestampNs,
                    rotation: frame.rotation, isKeyframe: isKeyframe,
                    isDroppable: data.flags & vpx_codec_frame_flags_t(VPX_FRAME_IS_DROPPABLE) != 0,
                    encodingIndex: index, temporalLayer: temporalLayers[index]?.frameEncoded(isKeyframe: isKeyframe))
            }
            if let encoded { output.append(encoded) } else { temporalLayers[index]?.frameDropped() }
        }
        return output
    }

    private func isKeyframeDue(_ index: Int, at timestampNs: Int64) -> Bool {
        guard case .every(let interval) = settings.keyframes, let last = lastKeyframeNs[index] else { return false }
        // Half a frame of slack, so 30 frames at 30 fps count as a full second.
        return Double(timestampNs - last) >= interval * 1e9 - 0.5e9 / format.frameRate
    }

    /// Shares `totalKbps` out and tells each context its part; an encoding that comes back from a
    /// pause starts with a keyframe.
    private func allocate(totalKbps: Int) throws(VPXError) {
        settings.bitrateKbps = totalKbps
        let allocation = allocator.allocate(totalBps: totalKbps * 1000)
        for index in 0..<count {
            // libwebrtc hands libvpx whole kbit/s (`GetSpatialLayerSum / 1000`).
            let kbps = allocation[index] / 1000
            guard kbps != encodingKbps[index] else { continue }
            if encodingKbps[index] == 0 && kbps > 0 { keyframeRequests.bitwiseOr(1 << index, ordering: .relaxed) }
            encodingKbps[index] = kbps
            let level = count - 1 - index
            configs[level].rc_target_bitrate = UInt32(kbps)
            if kbps > 0, let layers = temporalLayers[index] {
                VP8EncoderSettings.setLayerTargets(layers.cumulativeLayerKbps(total: kbps), in: &configs[level])
            }
            let result = vpx_codec_enc_config_set(contexts + level, configs + level)
            guard result == VPX_CODEC_OK else { throw VPXError("vpx_codec_enc_config_set", result, context: contexts + level) }
        }
        logger.debug("VP8 simulcast \(totalKbps) kbit/s shared as \(encodingKbps) kbit/s, lowest first")
    }

    /// The settings libwebrtc's `LibvpxVp8Encoder::InitEncode` gives encoding `index` (lowest
    /// first) of `layout` at `bitrateKbps`: below the top one thread; the denoiser on the two
    /// largest only (`InitAndSetControlSettings`); under 352x288, cpu-used −4 at the fastest
    /// (`GetCpuSpeed`).
    public static func encodingSettings(
        _ settings: VP8EncoderSettings, index: Int, of layout: SimulcastLayout, bitrateKbps: Int
    ) -> VP8EncoderSettings {
        let count = layout.encodings.count
        let encoding = layout.encodings[index]
        var own = settings
        own.bitrateKbps = bitrateKbps
        own.threads = index == count - 1 ? settings.threads ?? VP8EncoderSettings.defaultThreads(
            width: encoding.width, height: encoding.height, cores: ProcessInfo.processInfo.activeProcessorCount) : 1
        let isDenoised = index == count - 1 || (count > 2 && index == count - 2)
        if !isDenoised { own.noiseSensitivity = 0 }
        if encoding.width * encoding.height < 352 * 288 { own.cpuUsed = max(settings.cpuUsed, -4) }
        return own
    }

    private func open() throws(VPXError) {
        let allocation = allocator.allocate(totalBps: settings.bitrateKbps * 1000)
        scaled = []
        var encodingSettings: [VP8EncoderSettings] = []
        for level in 0..<count {
            let index = count - 1 - level
            let encoding = layout.encodings[index]
            let layers = encoding.temporalLayers > 1 ? VP8TemporalLayers(layerCount: encoding.temporalLayers) : nil
            temporalLayers[index] = layers
            encodingKbps[index] = allocation[index] / 1000
            let own = Self.encodingSettings(settings, index: index, of: layout, bitrateKbps: encodingKbps[index])
            encodingSettings.append(own)
            configs[level] = try own.libvpxConfiguration(
                width: encoding.width, height: encoding.height, bitrateKbps: encodingKbps[index],
                threads: own.threads ?? 1, temporalLayers: layers)
            // Each context's picture is the one above it halved (the last one's factor is unused).
            downsampling[level] = level < count - 1 ? vpx_rational(num: 2, den: 1) : vpx_rational(num: 1, den: 1)
            images[level] = vpxImageHeader(width: encoding.width, height: encoding.height)
            if level > 0 {
                let picture = I420Buffer(width: encoding.width, height: encoding.height)
                scaled.append(picture)
                vpxSetPlanes(of: &images[level], to: picture)
            }
            lastKeyframeNs[index] = nil
        }
        let result = vpx_codec_enc_init_multi_ver(
            contexts, vpx_codec_vp8_cx(), configs, Int32(count), 0, downsampling, CAMRTP_VPX_ENCODER_ABI_VERSION)
        guard result == VPX_CODEC_OK else { throw VPXError("vpx_codec_enc_init_multi", result, context: contexts) }
        isOpen = true
        for level in 0..<count {
            try encodingSettings[level].applyControls(to: contexts + level, frameRate: format.frameRate)
        }
        nextPts = 0
        logger.debug("VP8 simulcast open: \(layout.encodings.map { "\($0.width)x\($0.height)" }) at \(encodingKbps) kbit/s")
    }

    /// libwebrtc's `Release`: the contexts go highest index first.
    private func close() {
        guard isOpen else { return }
        for level in (0..<count).reversed() { vpx_codec_destroy(contexts + level) }
        isOpen = false
    }
}
