import CYUV
import FrameProcessing
import MediaCore
import TestSupport
import Testing
import Foundation
import Capture

/// Each packed format is made from a known I420 picture with libyuv's own I420To* and converted
/// back; 4:2:0 round trips are exact, 4:2:2 and RGB ones lossy but close.
@Suite struct PixelConverterTests {
    static let width = 64
    static let height = 48

    static func source(index: Int = 7) -> I420Buffer {
        let buffer = I420Buffer(width: width, height: height)
        TestPatternRenderer(width: width, height: height).render(index: index, into: buffer)
        return buffer
    }

    static func encode(_ source: I420Buffer, as format: PixelFormat) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: format.frameByteCount(width: width, height: height)!)
        let w = Int32(width), h = Int32(height)
        let (y, u, v) = (source.dataY, source.dataU, source.dataV)
        let (sy, su) = (Int32(source.strideY), Int32(source.strideU))
        bytes.withUnsafeMutableBufferPointer { out in
            let dst = out.baseAddress!
            switch format {
            case .i420: _ = I420Copy(y, sy, u, su, v, su, dst, w, dst + width * height, w / 2, dst + width * height * 5 / 4, w / 2, w, h)
            case .nv12: _ = I420ToNV12(y, sy, u, su, v, su, dst, w, dst + width * height, w, w, h)
            case .nv21: _ = I420ToNV21(y, sy, u, su, v, su, dst, w, dst + width * height, w, w, h)
            case .yuyv: _ = I420ToYUY2(y, sy, u, su, v, su, dst, w * 2, w, h)
            case .uyvy: _ = I420ToUYVY(y, sy, u, su, v, su, dst, w * 2, w, h)
            case .rgb24: _ = I420ToRAW(y, sy, u, su, v, su, dst, w * 3, w, h)
            case .bgra: _ = I420ToARGB(y, sy, u, su, v, su, dst, w * 4, w, h)
            case .mjpeg: break
            }
        }
        return bytes
    }

    @Test(arguments: [PixelFormat.i420, .nv12, .nv21])
    func planar420RoundTripsExactly(format: PixelFormat) throws {
        let source = Self.source()
        let packed = Self.encode(source, as: format)
        let output = I420Buffer(width: Self.width, height: Self.height)
        try packed.withUnsafeBytes { try PixelConverter.convertToI420($0, format: format, width: Self.width, height: Self.height, into: output) }
        #expect(Array(output.bytes) == Array(source.bytes))
    }

    @Test(arguments: [(PixelFormat.yuyv, 40.0), (.uyvy, 40.0), (.rgb24, 27.0), (.bgra, 27.0)])
    func packedFormatsRoundTripClosely(format: PixelFormat, floor: Double) throws {
        let source = Self.source()
        let packed = Self.encode(source, as: format)
        let output = I420Buffer(width: Self.width, height: Self.height)
        try packed.withUnsafeBytes { try PixelConverter.convertToI420($0, format: format, width: Self.width, height: Self.height, into: output) }
        let psnr = try #require(I420Transform.psnr(output, source))
        #expect(psnr > floor)
    }

    @Test func mjpegFromFFmpegDecodes() throws {
        try #require(ExternalTool.locate("ffmpeg") != nil, "ffmpeg is needed: apt-get install ffmpeg")
        let folder = TemporaryDirectory()
        let y4m = folder.file("in.y4m"), jpeg = folder.file("in.jpg")
        try Y4MFile.writeTestPattern(to: y4m, width: Self.width, height: Self.height, count: 1)
        let result = try ExternalTool("ffmpeg").run(["-nostdin", "-loglevel", "error", "-i", y4m, "-q:v", "2", "-y", jpeg])
        #expect(result.status == 0, "\(result.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: jpeg))
        let output = I420Buffer(width: Self.width, height: Self.height)
        try data.withUnsafeBytes { bytes in
            #expect(PixelConverter.mjpegSize(bytes)?.width == Self.width)
            try PixelConverter.convertToI420(bytes, format: .mjpeg, width: Self.width, height: Self.height, into: output)
        }
        // ffmpeg stores full-range (yuvj420p) JPEG, which libyuv hands over as is: a little off, not garbled.
        let psnr = try #require(I420Transform.psnr(output, Self.source(index: 0)))
        #expect(psnr > 20, "PSNR \(psnr)")
    }

    @Test func shortSampleIsRejectedNotRead() {
        let output = I420Buffer(width: Self.width, height: Self.height)
        let short = [UInt8](repeating: 0, count: 100)
        #expect(throws: LibyuvError.self) {
            try short.withUnsafeBytes { try PixelConverter.convertToI420($0, format: .yuyv, width: Self.width, height: Self.height, into: output) }
        }
    }

    @Test func garbageMJPEGFailsWithAnError() {
        let output = I420Buffer(width: Self.width, height: Self.height)
        let garbage = [UInt8](repeating: 0x55, count: 4096)
        #expect(throws: LibyuvError.self) {
            try garbage.withUnsafeBytes { try PixelConverter.convertToI420($0, format: .mjpeg, width: Self.width, height: Self.height, into: output) }
        }
    }
}
