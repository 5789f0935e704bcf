import Capture
import ImageEncoding
import MediaCore
import TestSupport
import Testing

@Suite struct ImageEncoderTests {
    static func pattern(width: Int, height: Int, index: Int = 7) -> I420Buffer {
        let buffer = I420Buffer(width: width, height: height)
        TestPatternRenderer(width: width, height: height).render(index: index, into: buffer)
        return buffer
    }

    @Test(arguments: [(640, 480), (1280, 720), (161, 121)])
    func jpegDecodesBackCloseToTheSource(width: Int, height: Int) throws {
        let source = Self.pattern(width: width, height: height)
        let image = try ImageEncoder.encode(source, as: .jpeg)
        #expect(image.format == .jpeg && image.width == width && image.height == height)
        #expect(image.data.starts(with: [0xFF, 0xD8, 0xFF]), "SOI marker")
        let header = try ImageDecoding.jpegHeader(image.data)
        #expect(header == ImageDecoding.JPEGHeader(
            width: width, height: height, subsampling: ImageDecoding.jpegSubsampling420, colorspace: ImageDecoding.jpegColorspaceYCbCr))
        let psnr = try #require(ImageDecoding.psnr(ImageDecoding.jpeg(image.data), RGBPicture(converting: source)))
        #expect(psnr > 35, "PSNR \(psnr) dB at quality \(ImageEncoder.defaultQuality)")
    }

    @Test func higherQualityCostsBytesAndBuysFidelity() throws {
        let source = Self.pattern(width: 640, height: 480)
        let reference = try RGBPicture(converting: source)
        let low = try ImageEncoder.encode(source, as: .jpeg, quality: 30)
        let high = try ImageEncoder.encode(source, as: .jpeg, quality: 98)
        #expect(low.data.count < high.data.count)
        let lowPSNR = try #require(ImageDecoding.psnr(ImageDecoding.jpeg(low.data), reference))
        let highPSNR = try #require(ImageDecoding.psnr(ImageDecoding.jpeg(high.data), reference))
        #expect(lowPSNR + 3 < highPSNR, "quality 30: \(lowPSNR) dB, 98: \(highPSNR) dB")
    }

    /// Camera and VP8 pictures are limited range; JPEG and PNG are full range. Black (Y 16) must
    /// come out black and white (Y 235) white, not grey.
    @Test(arguments: [ImageFormat.jpeg, .png])
    func limitedRangeBlackAndWhiteBecomeFullRange(format: ImageFormat) throws {
        for (luma, expected) in [(UInt8(16), 0), (235, 255)] {
            let flat = I420Buffer(width: 64, height: 48)
            flat.fill(y: luma, u: 128, v: 128)
            let image = try ImageEncoder.encode(flat, as: format)
            let decoded = try format == .jpeg ? ImageDecoding.jpeg(image.data) : ImageDecoding.png(image.data)
            let worst = decoded.bytes.map { abs(Int($0) - expected) }.max() ?? 255
            #expect(worst <= 1, "Y \(luma) decoded \(decoded.bytes.prefix(3)), expected \(expected)")
        }
    }

    @Test(arguments: [(640, 480), (161, 121)])
    func pngRoundTripsTheRGBExactly(width: Int, height: Int) throws {
        let source = Self.pattern(width: width, height: height)
        let image = try ImageEncoder.encode(source, as: .png)
        #expect(image.data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "PNG signature")
        let decoded = try ImageDecoding.png(image.data)
        #expect(decoded.width == width && decoded.height == height)
        let expected = try RGBPicture(converting: source)
        #expect(zip(decoded.bytes, expected.bytes).filter { $0 != $1 }.count == 0, "bytes that differ")
    }

    @Test(arguments: [0, -5, 101])
    func aQualityOutsideOneToHundredIsRefused(quality: Int) {
        #expect(throws: ImageEncodingError.invalidQuality(quality)) {
            try ImageEncoder.encode(Self.pattern(width: 32, height: 32), as: .jpeg, quality: quality)
        }
    }

    @Test func errorsSayWhatFailedAndTheLimits() {
        #expect("\(ImageEncodingError.invalidQuality(0))" == "ImageEncodingError: quality 0 is outside 1...100")
        #expect("\(ImageEncodingError.turboJPEG(operation: "tjCompress2", code: -1, message: "bad"))"
            == "ImageEncodingError: TurboJPEG tjCompress2 failed: bad (code -1)")
    }
}

@Suite struct ImageFormatTests {
    @Test(arguments: [
        ("x.jpg", ImageFormat.jpeg), ("dir.d/Shot.JPEG", .jpeg), ("a.b.png", .png), ("/tmp/x.PNG", .png),
    ])
    func theExtensionChoosesTheFormat(name: String, format: ImageFormat) {
        #expect(ImageFormat(fileName: name) == format)
    }

    @Test(arguments: ["x.gif", "jpg", ".png", "dir.png/x", "x.", "x.jpg.bak", ""])
    func otherNamesChooseNone(name: String) {
        #expect(ImageFormat(fileName: name) == nil)
    }
}
