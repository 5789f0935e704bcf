import MediaCore
import RTPSession

/// The encoder as the session steers it, at 30 fps: frames hit the target rate on average
/// (±15 %), as a CBR encoder does; a keyframe is `keyframeSizeFactor` times bigger and the
/// frames after it pay the excess back (up to half of each). A keyframe comes first, on request and
/// every `keyframeIntervalNs`; no frame is encoded while the session says the network is
/// congested. Each frame starts with a VP8 frame tag (RFC 6386 §9.1) whose key bit receivers read.
struct SimulatedEncoder {
    static let frameIntervalNs: Int64 = 1_000_000_000 / 30
    static let keyframeSizeFactor = 4.0
    static let maxPaybackShare = 0.5

    let keyframeIntervalNs: Int64?
    private var random: SplitMix64
    private(set) var nextFrameNs: Int64 = 0
    private(set) var targetBps: Int64
    private(set) var isPaused = false
    private var keyframeRequested = true
    private var lastKeyframeNs: Int64?
    /// Bytes a keyframe took beyond the rate, still to be saved on later frames.
    private var excessBytes = 0.0
    /// The capture time of every frame encoded.
    private(set) var encodedFramesNs: [Int64] = []
    private(set) var framesSkipped = 0
    private(set) var keyframes = 0
    private(set) var keyframeRequests = 0

    init(startBitrateBps: Int64, keyframeIntervalNs: Int64?, seed: UInt64) {
        targetBps = startBitrateBps
        self.keyframeIntervalNs = keyframeIntervalNs
        random = SplitMix64(state: seed)
    }

    mutating func apply(_ command: EncoderCommand) {
        switch command {
        case .keyframe:
            keyframeRequested = true
            keyframeRequests += 1
        case .targetBitrate(let kbps):
            targetBps = Int64(kbps) * 1000
        case .networkCongested(let congested):
            isPaused = congested
        case .paddingProbeFailed:
            break
        }
    }

    /// The frame due now, or nil when it is dropped for congestion.
    mutating func nextFrame(nowNs: Int64) -> EncodedFrame? {
        nextFrameNs = nowNs + Self.frameIntervalNs
        guard !isPaused else {
            framesSkipped += 1
            return nil
        }
        var sizeBytes = Double(targetBps) / 8 / 30 * Double.random(in: 0.85...1.15, using: &random)
        let isKeyframe = keyframeRequested || (lastKeyframeNs.map { last in keyframeIntervalNs.map { nowNs - last >= $0 } ?? false } ?? true)
        if isKeyframe {
            keyframeRequested = false
            lastKeyframeNs = nowNs
            keyframes += 1
            excessBytes += sizeBytes * (Self.keyframeSizeFactor - 1)
            sizeBytes *= Self.keyframeSizeFactor
        } else {
            let paybackBytes = min(excessBytes, sizeBytes * Self.maxPaybackShare)
            excessBytes -= paybackBytes
            sizeBytes -= paybackBytes
        }
        encodedFramesNs.append(nowNs)
        var data = [UInt8](repeating: 0x5A, count: max(Int(sizeBytes), 100))
        data[0] = isKeyframe ? 0x10 : 0x11  // show_frame, and the key bit (0 for a keyframe)
        return EncodedFrame(
            data: data, width: 640, height: 360, timestampNs: nowNs, rotation: .deg0, isKeyframe: isKeyframe, isDroppable: false)
    }
}
