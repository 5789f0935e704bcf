/// The pixel formats a capture source can deliver, each with its V4L2 fourcc (videodev2.h).
public enum PixelFormat: String, Sendable, CaseIterable, Codable {
    /// Planar 4:2:0, Y then U then V (V4L2 `YU12`).
    case i420
    /// Y plane, then interleaved U/V at half resolution.
    case nv12
    /// Y plane, then interleaved V/U at half resolution.
    case nv21
    /// Packed 4:2:2 in the order Y0 U Y1 V.
    case yuyv
    /// Packed 4:2:2 in the order U Y0 V Y1.
    case uyvy
    /// Motion JPEG: every frame is a JPEG image.
    case mjpeg
    /// Packed 8-bit R, G, B (V4L2 `RGB3`).
    case rgb24
    /// Packed 8-bit B, G, R, A in memory (V4L2 `AR24`, libyuv's ARGB).
    case bgra

    /// The V4L2 fourcc, as stored in `v4l2_pix_format.pixelformat`.
    public var fourcc: UInt32 {
        switch self {
        case .i420: FourCC.make("YU12")
        case .nv12: FourCC.make("NV12")
        case .nv21: FourCC.make("NV21")
        case .yuyv: FourCC.make("YUYV")
        case .uyvy: FourCC.make("UYVY")
        case .mjpeg: FourCC.make("MJPG")
        case .rgb24: FourCC.make("RGB3")
        case .bgra: FourCC.make("AR24")
        }
    }

    /// Maps a V4L2 fourcc back to a format; `JPEG` is treated as MJPEG, as drivers use both.
    public init?(fourcc: UInt32) {
        if fourcc == FourCC.make("JPEG") {
            self = .mjpeg
            return
        }
        guard let format = PixelFormat.allCases.first(where: { $0.fourcc == fourcc }) else { return nil }
        self = format
    }

    /// Bytes one frame needs, or nil for compressed formats whose size varies.
    public func frameByteCount(width: Int, height: Int) -> Int? {
        let chroma = ((width + 1) / 2) * ((height + 1) / 2)
        switch self {
        case .i420, .nv12, .nv21: return width * height + 2 * chroma
        case .yuyv, .uyvy: return ((width + 1) / 2) * 4 * height
        case .rgb24: return width * height * 3
        case .bgra: return width * height * 4
        case .mjpeg: return nil
        }
    }

    public var isCompressed: Bool { self == .mjpeg }
}

/// Four-character codes as V4L2 and libyuv store them: the first character in the low byte.
public enum FourCC {
    public static func make(_ code: StaticString) -> UInt32 {
        precondition(code.utf8CodeUnitCount == 4, "a fourcc has four characters")
        let bytes = UnsafeBufferPointer(start: code.utf8Start, count: 4)
        return UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
    }

    /// The printable form, such as `YUYV`; unprintable bytes show as `?`.
    public static func string(_ code: UInt32) -> String {
        let scalars = (0..<4).map { shift -> Character in
            let byte = UInt8(truncatingIfNeeded: code >> (8 * UInt32(shift)))
            return (0x20...0x7E).contains(byte) ? Character(Unicode.Scalar(byte)) : "?"
        }
        return String(scalars)
    }
}
