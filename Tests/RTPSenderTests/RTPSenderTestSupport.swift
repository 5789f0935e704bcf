import MediaCore
@testable import RTPSender

/// Encoded frames of `sizes` bytes, 40 ms apart (25 fps), the first a keyframe.
func testFrames(_ sizes: [Int], rotation: VideoRotation = .deg0) -> [EncodedFrame] {
    sizes.enumerated().map { index, size in
        EncodedFrame(
            data: (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }, width: 320, height: 240,
            timestampNs: 7_000_000_000 + Int64(index) * 40_000_000, rotation: rotation,
            isKeyframe: index == 0, isDroppable: false)
    }
}
