import FrameProcessing
import MediaCore

/// A picture as packed 8-bit R, G, B bytes in memory order, rows back to back: what still-image
/// encoders take.
public struct RGBPicture: Sendable {
    public let width: Int
    public let height: Int
    public let bytes: [UInt8]

    public var rowBytes: Int { width * 3 }

    public init(width: Int, height: Int, bytes: [UInt8]) {
        precondition(bytes.count == width * height * 3, "\(bytes.count) bytes are not a \(width)x\(height) RGB picture")
        self.width = width
        self.height = height
        self.bytes = bytes
    }

    /// Converts an I420 picture with libyuv (`I420ToRAW`), which reads it as BT.601 limited range
    /// (what cameras and VP8 carry) and writes full-range RGB, as a viewer shows it.
    public init(converting buffer: I420Buffer) throws(LibyuvError) {
        let count = buffer.width * buffer.height * 3
        var failure: LibyuvError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { storage, initialized in
            do throws(LibyuvError) {
                initialized = try PixelConverter.convertFromI420(buffer, to: .rgb24, into: UnsafeMutableRawBufferPointer(storage))
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        self.init(width: buffer.width, height: buffer.height, bytes: bytes)
    }
}
