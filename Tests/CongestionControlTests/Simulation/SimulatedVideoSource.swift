import TestSupport

/// An encoder at 30 fps that hits its target rate on average, as a CBR encoder does: frame
/// sizes vary ±15 % around rate / fps; a keyframe is `keyframeSizeFactor` times bigger and the
/// frames after it are up to 25 % smaller until the excess is paid back. Frames are split into
/// packets of at most 1200 bytes on the wire, balanced as the VP8 packetizer does.
struct SimulatedVideoSource {
    static let frameIntervalNs: Int64 = 1_000_000_000 / 30
    static let maxPacketBytes = 1200
    static let keyframeSizeFactor = 4.0
    static let maxPaybackShare = 0.25

    let keyframeIntervalNs: Int64?
    private var random: SplitMix64
    private(set) var nextFrameNs: Int64 = 0
    private var lastKeyframeNs: Int64?
    /// Bytes a keyframe took beyond the rate, still to be saved on later frames.
    private var excessBytes = 0.0

    init(keyframeIntervalNs: Int64?, seed: UInt64) {
        self.keyframeIntervalNs = keyframeIntervalNs
        random = SplitMix64(state: seed)
    }

    /// The packet sizes of the frame due now, encoded at `bitrateBps`.
    mutating func makeFrame(nowNs: Int64, bitrateBps: Int64) -> [Int] {
        nextFrameNs = nowNs + Self.frameIntervalNs
        var sizeBytes = Double(bitrateBps) / 8 / 30 * Double.random(in: 0.85...1.15, using: &random)
        let isKeyframe = lastKeyframeNs.map { last in keyframeIntervalNs.map { nowNs - last >= $0 } ?? false } ?? true
        if isKeyframe {
            lastKeyframeNs = nowNs
            excessBytes += sizeBytes * (Self.keyframeSizeFactor - 1)
            sizeBytes *= Self.keyframeSizeFactor
        } else {
            let paybackBytes = min(excessBytes, sizeBytes * Self.maxPaybackShare)
            excessBytes -= paybackBytes
            sizeBytes -= paybackBytes
        }
        let totalBytes = max(Int(sizeBytes), 100)
        let packetCount = (totalBytes + Self.maxPacketBytes - 1) / Self.maxPacketBytes
        return (0..<packetCount).map { index in
            totalBytes / packetCount + (index < totalBytes % packetCount ? 1 : 0)
        }
    }
}
