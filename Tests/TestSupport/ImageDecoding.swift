import Foundation
import CPNG
import CTurboJPEG
import CYUV
import ImageEncoding

/// Reads back what the image encoders wrote, with the libraries' own decoders, as RGB.
public enum ImageDecoding {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// What a JPEG's header says.
    public struct JPEGHeader: Equatable, Sendable {
        public let width: Int
        public let height: Int
        /// TurboJPEG's `TJSAMP_*`.
        public let subsampling: Int32
        /// TurboJPEG's `TJCS_*`.
        public let colorspace: Int32

        public init(width: Int, height: Int, subsampling: Int32, colorspace: Int32) {
            self.width = width
            self.height = height
            self.subsampling = subsampling
            self.colorspace = colorspace
        }
    }

    public static let jpegSubsampling420 = Int32(TJSAMP_420.rawValue)
    public static let jpegColorspaceYCbCr = Int32(TJCS_YCbCr.rawValue)

    public static func jpegHeader(_ data: [UInt8]) throws -> JPEGHeader {
        try withDecompressor { handle in
            var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
            let code = data.withUnsafeBufferPointer {
                tjDecompressHeader3(handle, $0.baseAddress, UInt($0.count), &width, &height, &subsampling, &colorspace)
            }
            guard code == 0 else { throw Failure(description: "tjDecompressHeader3: \(String(cString: tjGetErrorStr2(handle)))") }
            return JPEGHeader(width: Int(width), height: Int(height), subsampling: subsampling, colorspace: colorspace)
        }
    }

    /// A JPEG decoded by TurboJPEG into packed RGB.
    public static func jpeg(_ data: [UInt8]) throws -> RGBPicture {
        let header = try jpegHeader(data)
        return try withDecompressor { handle in
            var rgb = [UInt8](repeating: 0, count: header.width * header.height * 3)
            let code = data.withUnsafeBufferPointer { jpeg in
                rgb.withUnsafeMutableBufferPointer { output in
                    tjDecompress2(
                        handle, jpeg.baseAddress, UInt(jpeg.count), output.baseAddress, Int32(header.width),
                        Int32(header.width * 3), Int32(header.height), Int32(TJPF_RGB.rawValue), 0)
                }
            }
            guard code == 0 else { throw Failure(description: "tjDecompress2: \(String(cString: tjGetErrorStr2(handle)))") }
            return RGBPicture(width: header.width, height: header.height, bytes: rgb)
        }
    }

    /// A PNG decoded by libpng's simplified API into 8-bit RGB.
    public static func png(_ data: [UInt8]) throws -> RGBPicture {
        var image = png_image()
        image.version = CAMRTP_PNG_IMAGE_VERSION
        guard data.withUnsafeBytes({ png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }) != 0 else {
            throw Failure(description: "png_image_begin_read_from_memory: \(message(image))")
        }
        image.format = CAMRTP_PNG_FORMAT_RGB
        let width = Int(image.width), height = Int(image.height)
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        let succeeded = rgb.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, Int32(width * 3), nil) }
        guard succeeded != 0 else {
            png_image_free(&image)
            throw Failure(description: "png_image_finish_read: \(message(image))")
        }
        return RGBPicture(width: width, height: height, bytes: rgb)
    }

    /// The peak signal-to-noise ratio of two pictures of one size over all their bytes, in dB
    /// (libyuv's; identical pictures give 128).
    public static func psnr(_ a: RGBPicture, _ b: RGBPicture) -> Double? {
        guard a.width == b.width, a.height == b.height else { return nil }
        let sse = a.bytes.withUnsafeBufferPointer { x in
            b.bytes.withUnsafeBufferPointer { y in ComputeSumSquareError(x.baseAddress, y.baseAddress, Int32(x.count)) }
        }
        return SumSquareErrorToPsnr(sse, UInt64(a.bytes.count))
    }

    private static func withDecompressor<Result>(_ body: (tjhandle) throws -> Result) throws -> Result {
        guard let handle = tjInitDecompress() else { throw Failure(description: "tjInitDecompress failed") }
        defer { tjDestroy(handle) }
        return try body(handle)
    }

    private static func message(_ image: png_image) -> String {
        withUnsafeBytes(of: image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}

extension ImageDecoding {
    /// How many colours (4 bits a channel) a browser's screenshot shows where the viewer page's
    /// video element sits (640 px wide at its top left): a playing test pattern has hundreds, a
    /// black or empty box a handful.
    public static func videoColourCount(inScreenshot path: String) throws -> Int {
        let picture = try png(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        var colours = Set<Int>()
        for y in stride(from: 60, to: min(400, picture.height), by: 4) {
            for x in stride(from: 100, to: min(560, picture.width), by: 4) {
                let offset = y * picture.rowBytes + x * 3
                colours.insert(Int(picture.bytes[offset] >> 4) << 8 | Int(picture.bytes[offset + 1] >> 4) << 4 | Int(picture.bytes[offset + 2] >> 4))
            }
        }
        return colours.count
    }
}
