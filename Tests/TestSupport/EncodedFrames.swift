import MediaCore

/// Encoded frames of `sizes` bytes, 40 ms apart (25 fps), the first a keyframe, of encoding
/// `encodingIndex`; their bytes differ from frame to frame.
public func testFrames(_ sizes: [Int], rotation: VideoRotation = .deg0, encodingIndex: Int = 0) -> [EncodedFrame] {
    sizes.enumerated().map { index, size in
        EncodedFrame(
            data: (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }, width: 320, height: 240,
            timestampNs: 7_000_000_000 + Int64(index) * 40_000_000, rotation: rotation,
            isKeyframe: index == 0, isDroppable: false, encodingIndex: encodingIndex)
    }
}

/// One encoded frame with the given bytes.
public func encodedFrame(
    _ data: [UInt8], timestampNs: Int64 = 0, rotation: VideoRotation = .deg0, isKeyframe: Bool = false,
    isDroppable: Bool = false, encodingIndex: Int = 0
) -> EncodedFrame {
    EncodedFrame(
        data: data, width: 320, height: 240, timestampNs: timestampNs, rotation: rotation, isKeyframe: isKeyframe,
        isDroppable: isDroppable, encodingIndex: encodingIndex)
}
