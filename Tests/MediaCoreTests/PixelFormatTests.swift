import MediaCore
import Testing

@Suite struct PixelFormatTests {
    @Test func fourccsMatchVideodev2() {
        // videodev2.h: v4l2_fourcc(a, b, c, d) = a | b << 8 | c << 16 | d << 24.
        #expect(PixelFormat.yuyv.fourcc == 0x5659_5559)
        #expect(PixelFormat.mjpeg.fourcc == 0x4750_4A4D)
        #expect(PixelFormat.i420.fourcc == 0x3231_5559)
        #expect(FourCC.string(PixelFormat.nv12.fourcc) == "NV12")
        #expect(FourCC.string(PixelFormat.bgra.fourcc) == "AR24")
        #expect(FourCC.string(PixelFormat.rgb24.fourcc) == "RGB3")
    }

    @Test(arguments: PixelFormat.allCases)
    func fourccRoundTrips(format: PixelFormat) {
        #expect(PixelFormat(fourcc: format.fourcc) == format)
    }

    @Test func jpegIsTreatedAsMJPEG() {
        #expect(PixelFormat(fourcc: FourCC.make("JPEG")) == .mjpeg)
        #expect(PixelFormat(fourcc: FourCC.make("H264")) == nil)
    }

    @Test func frameSizes() {
        #expect(PixelFormat.i420.frameByteCount(width: 3, height: 3) == 9 + 2 * 4)
        #expect(PixelFormat.yuyv.frameByteCount(width: 640, height: 480) == 640 * 480 * 2)
        #expect(PixelFormat.yuyv.frameByteCount(width: 3, height: 1) == 8)
        #expect(PixelFormat.bgra.frameByteCount(width: 2, height: 2) == 16)
        #expect(PixelFormat.mjpeg.frameByteCount(width: 640, height: 480) == nil)
    }
}

@Suite struct VideoRotationTests {
    @Test func degrees() {
        #expect(VideoRotation(degrees: 450) == .deg90)
        #expect(VideoRotation(degrees: -90) == .deg270)
        #expect(VideoRotation(degrees: 45) == nil)
        #expect(VideoRotation.deg270.adding(.deg180) == .deg90)
        #expect(VideoRotation.deg90.swapsDimensions && !VideoRotation.deg180.swapsDimensions)
    }
}
