import CYUV
import MediaCore

/// Converts captured pixels in any `PixelFormat` to I420 with libyuv's `ConvertToI420`, which
/// also decodes MJPEG (through libjpeg, accepting the Huffman-less frames many UVC cameras send).
public enum PixelConverter {
    /// Converts `sample`, a `width × height` picture in `format`, into `destination`, which must
    /// have the same size. A sample shorter than the format needs is rejected, never read past.
    /// `rowPixels` is the padded row length in pixels when the rows carry padding (a driver's
    /// `bytesperline` larger than the width); compressed formats ignore it.
    public static func convertToI420(
        _ sample: UnsafeRawBufferPointer, format: PixelFormat, width: Int, height: Int,
        rowPixels: Int? = nil, into destination: I420Buffer
    ) throws(LibyuvError) {
        let sourceWidth = format.isCompressed ? width : max(width, rowPixels ?? width)
        guard destination.width == width, destination.height == height else {
            throw LibyuvError(
                operation: "ConvertToI420", code: -1,
                detail: "destination is \(destination.width)x\(destination.height), source \(width)x\(height)")
        }
        if let needed = format.frameByteCount(width: sourceWidth, height: height), sample.count < needed {
            throw LibyuvError(
                operation: "ConvertToI420", code: -1,
                detail: "\(format.rawValue) sample of \(sample.count) bytes is shorter than the \(needed) a \(width)x\(height) frame needs")
        }
        guard let base = sample.baseAddress, !sample.isEmpty else {
            throw LibyuvError(operation: "ConvertToI420", code: -1, detail: "empty \(format.rawValue) sample")
        }
        let code = ConvertToI420(
            base.assumingMemoryBound(to: UInt8.self), sample.count,
            destination.dataY, Int32(destination.strideY),
            destination.dataU, Int32(destination.strideU),
            destination.dataV, Int32(destination.strideV),
            0, 0, Int32(sourceWidth), Int32(height), Int32(width), Int32(height),
            kRotate0, libyuvFourCC(format))
        guard code == 0 else {
            throw LibyuvError(
                operation: "ConvertToI420", code: code,
                detail: "could not convert a \(width)x\(height) \(format.rawValue) frame of \(sample.count) bytes")
        }
    }

    /// The width and height an MJPEG frame declares, read from its SOF marker by libyuv.
    public static func mjpegSize(_ sample: UnsafeRawBufferPointer) -> (width: Int, height: Int)? {
        guard let base = sample.baseAddress, !sample.isEmpty else { return nil }
        var width: Int32 = 0
        var height: Int32 = 0
        guard MJPGSize(base.assumingMemoryBound(to: UInt8.self), sample.count, &width, &height) == 0 else { return nil }
        return (Int(width), Int(height))
    }

    /// Writes `source` into `destination` as a tightly packed picture in `format` (libyuv's
    /// `ConvertFromI420`), the inverse of `convertToI420`; returns the bytes written. MJPEG needs
    /// an encoder and is rejected.
    public static func convertFromI420(
        _ source: I420Buffer, to format: PixelFormat, into destination: UnsafeMutableRawBufferPointer
    ) throws(LibyuvError) -> Int {
        guard let needed = format.frameByteCount(width: source.width, height: source.height) else {
            throw LibyuvError(operation: "ConvertFromI420", code: -1, detail: "cannot encode \(format.rawValue)")
        }
        guard let base = destination.baseAddress, destination.count >= needed else {
            throw LibyuvError(
                operation: "ConvertFromI420", code: -1,
                detail: "destination of \(destination.count) bytes is smaller than the \(needed) a \(format.rawValue) frame needs")
        }
        // A stride of 0 asks libyuv for tightly packed rows of the format.
        let code = ConvertFromI420(
            source.dataY, Int32(source.strideY), source.dataU, Int32(source.strideU), source.dataV, Int32(source.strideV),
            base.assumingMemoryBound(to: UInt8.self), 0, Int32(source.width), Int32(source.height),
            libyuvFourCC(format))
        guard code == 0 else {
            throw LibyuvError(operation: "ConvertFromI420", code: code, detail: "could not write a \(format.rawValue) frame")
        }
        return needed
    }

    private static func libyuvFourCC(_ format: PixelFormat) -> UInt32 {
        switch format {
        case .i420: CAMRTP_YUV_FOURCC_I420
        case .nv12: CAMRTP_YUV_FOURCC_NV12
        case .nv21: CAMRTP_YUV_FOURCC_NV21
        case .yuyv: CAMRTP_YUV_FOURCC_YUY2
        case .uyvy: CAMRTP_YUV_FOURCC_UYVY
        case .mjpeg: CAMRTP_YUV_FOURCC_MJPG
        case .rgb24: CAMRTP_YUV_FOURCC_RAW
        case .bgra: CAMRTP_YUV_FOURCC_ARGB
        }
    }
}
