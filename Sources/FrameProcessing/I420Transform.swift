import CYUV
import MediaCore

/// A rectangle in a picture, in pixels.
public struct CropRect: Sendable, Equatable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// Crop, scale, rotate and mirror of I420 pictures, all done by libyuv.
public enum I420Transform {
    /// Scales `crop` of `source` (the whole picture when nil) to fill `destination`, with box
    /// filtering. The crop origin is rounded down to even so the chroma planes stay aligned.
    public static func scale(_ source: I420Buffer, crop: CropRect? = nil, into destination: I420Buffer) throws(LibyuvError) {
        let rect = crop ?? CropRect(x: 0, y: 0, width: source.width, height: source.height)
        let x = rect.x & ~1
        let y = rect.y & ~1
        guard x >= 0, y >= 0, rect.width > 0, rect.height > 0,
              x + rect.width <= source.width, y + rect.height <= source.height else {
            throw LibyuvError(
                operation: "I420Scale", code: -1,
                detail: "crop \(rect) does not fit in \(source.width)x\(source.height)")
        }
        let code = I420Scale(
            source.dataY + y * source.strideY + x, Int32(source.strideY),
            source.dataU + (y / 2) * source.strideU + x / 2, Int32(source.strideU),
            source.dataV + (y / 2) * source.strideV + x / 2, Int32(source.strideV),
            Int32(rect.width), Int32(rect.height),
            destination.dataY, Int32(destination.strideY),
            destination.dataU, Int32(destination.strideU),
            destination.dataV, Int32(destination.strideV),
            Int32(destination.width), Int32(destination.height), kFilterBox)
        guard code == 0 else {
            throw LibyuvError(operation: "I420Scale", code: code, detail: "could not scale to \(destination.width)x\(destination.height)")
        }
    }

    /// Rotates `source` clockwise by `rotation` into `destination`, whose size must be the
    /// rotated size (width and height swapped for 90 and 270).
    public static func rotate(_ source: I420Buffer, by rotation: VideoRotation, into destination: I420Buffer) throws(LibyuvError) {
        let expected = rotation.swapsDimensions ? (source.height, source.width) : (source.width, source.height)
        guard destination.width == expected.0, destination.height == expected.1 else {
            throw LibyuvError(
                operation: "I420Rotate", code: -1,
                detail: "destination is \(destination.width)x\(destination.height), rotated source is \(expected.0)x\(expected.1)")
        }
        let mode: RotationMode = switch rotation {
        case .deg0: kRotate0
        case .deg90: kRotate90
        case .deg180: kRotate180
        case .deg270: kRotate270
        }
        let code = I420Rotate(
            source.dataY, Int32(source.strideY), source.dataU, Int32(source.strideU), source.dataV, Int32(source.strideV),
            destination.dataY, Int32(destination.strideY), destination.dataU, Int32(destination.strideU),
            destination.dataV, Int32(destination.strideV),
            Int32(source.width), Int32(source.height), mode)
        guard code == 0 else {
            throw LibyuvError(operation: "I420Rotate", code: code, detail: "could not rotate by \(rotation.degrees)°")
        }
    }

    /// Mirrors `source` left to right into `destination` of the same size.
    public static func mirror(_ source: I420Buffer, into destination: I420Buffer) throws(LibyuvError) {
        guard destination.width == source.width, destination.height == source.height else {
            throw LibyuvError(operation: "I420Mirror", code: -1, detail: "destination size differs from source")
        }
        let code = I420Mirror(
            source.dataY, Int32(source.strideY), source.dataU, Int32(source.strideU), source.dataV, Int32(source.strideV),
            destination.dataY, Int32(destination.strideY), destination.dataU, Int32(destination.strideU),
            destination.dataV, Int32(destination.strideV),
            Int32(source.width), Int32(source.height))
        guard code == 0 else {
            throw LibyuvError(operation: "I420Mirror", code: code, detail: "could not mirror")
        }
    }

    /// The peak signal-to-noise ratio of `a` against `b` over all three planes, in dB
    /// (libyuv caps identical pictures at 128 dB).
    public static func psnr(_ a: I420Buffer, _ b: I420Buffer) -> Double? {
        guard a.width == b.width, a.height == b.height else { return nil }
        return I420Psnr(
            a.dataY, Int32(a.strideY), a.dataU, Int32(a.strideU), a.dataV, Int32(a.strideV),
            b.dataY, Int32(b.strideY), b.dataU, Int32(b.strideU), b.dataV, Int32(b.strideV),
            Int32(a.width), Int32(a.height))
    }
}
