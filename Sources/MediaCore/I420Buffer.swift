/// A planar 4:2:0 picture: a full-size Y plane and U and V planes of `(w+1)/2 × (h+1)/2`.
///
/// The planes sit back to back in one allocation with tight strides, so the memory is exactly
/// one I420 (Y4M) frame and can be read or written in one bulk copy. The buffer is written by
/// one producer before it is handed on, and only read after that, which is what makes sharing
/// it across threads safe.
public final class I420Buffer: @unchecked Sendable {
    public let width: Int
    public let height: Int
    public let strideY: Int
    public let strideU: Int
    public let strideV: Int
    public let dataY: UnsafeMutablePointer<UInt8>
    public let dataU: UnsafeMutablePointer<UInt8>
    public let dataV: UnsafeMutablePointer<UInt8>
    /// All three planes as one span of bytes.
    public let bytes: UnsafeMutableRawBufferPointer

    public var chromaWidth: Int { (width + 1) / 2 }
    public var chromaHeight: Int { (height + 1) / 2 }

    /// Bytes one `width × height` I420 frame occupies with tight strides.
    public static func byteCount(width: Int, height: Int) -> Int {
        width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)
    }

    /// Allocates an uninitialised buffer. Sizes must be positive; callers validate input first.
    public init(width: Int, height: Int) {
        precondition(width > 0 && height > 0, "an I420 buffer needs a positive size, not \(width)x\(height)")
        self.width = width
        self.height = height
        strideY = width
        strideU = (width + 1) / 2
        strideV = strideU
        let lumaCount = width * height
        let chromaCount = strideU * ((height + 1) / 2)
        bytes = .allocate(byteCount: lumaCount + 2 * chromaCount, alignment: 64)
        let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        dataY = base
        dataU = base + lumaCount
        dataV = base + lumaCount + chromaCount
    }

    deinit {
        bytes.deallocate()
    }

    /// Fills the Y, U and V planes with constant values.
    public func fill(y: UInt8, u: UInt8, v: UInt8) {
        let lumaCount = width * height
        let chromaCount = strideU * chromaHeight
        UnsafeMutableRawBufferPointer(rebasing: bytes[0..<lumaCount]).initializeMemory(as: UInt8.self, repeating: y)
        UnsafeMutableRawBufferPointer(rebasing: bytes[lumaCount..<(lumaCount + chromaCount)])
            .initializeMemory(as: UInt8.self, repeating: u)
        UnsafeMutableRawBufferPointer(rebasing: bytes[(lumaCount + chromaCount)...])
            .initializeMemory(as: UInt8.self, repeating: v)
    }
}
