import Capture
import Testing

@Suite struct Y4MHeaderTests {
    @Test func parsesEveryTag() throws {
        let header = try Y4MHeader(parsing: "YUV4MPEG2 W641 H361 F30000:1001 Ip A1:1 C420mpeg2 XYSCSS=420MPEG2")
        #expect(header.width == 641 && header.height == 361)
        #expect(header.frameRateNumerator == 30000 && header.frameRateDenominator == 1001)
        #expect(header.pixelAspect?.numerator == 1)
        #expect(header.colorSpace == .c420mpeg2)
        #expect(header.frameByteCount == 641 * 361 + 2 * 321 * 181)
    }

    @Test(arguments: ["420", "420jpeg", "420paldv", "420mpeg2", "mono"])
    func acceptsThe420FamilyAndMono(space: String) throws {
        let header = try Y4MHeader(parsing: Substring("YUV4MPEG2 W4 H2 F25:1 C\(space)"))
        #expect(header.colorSpace.rawValue == space)
    }

    @Test func defaultsTo420jpegAt25fps() throws {
        let header = try Y4MHeader(parsing: "YUV4MPEG2 W4 H2")
        #expect(header.colorSpace == .c420jpeg && header.frameRate == 25)
        #expect(try Y4MHeader(parsing: "YUV4MPEG2 W4 H2 F0:1").frameRate == 25, "GStreamer's unknown rate")
    }

    @Test(arguments: [
        ("YUV4MPEG W4 H2", Y4MProblem.badHeader("it does not start with YUV4MPEG2")),
        ("YUV4MPEG2 H2 F1:1", .badHeader("width 'W' is missing or not a positive number")),
        ("YUV4MPEG2 W4 H0", .badHeader("height 'H' is missing or not a positive number")),
        ("YUV4MPEG2 W4 H2 F30:0", .badHeader("frame rate 'F30:0' is not N:D with N, D > 0")),
        ("YUV4MPEG2 W4 H2 F-1:1", .badHeader("frame rate 'F-1:1' is not N:D with N, D > 0")),
        // Rates whose frame interval or IVF timebase overflowed Int64 and crashed `camrtp send`.
        ("YUV4MPEG2 W2 H2 F1:1000000000000", .rateOutOfRange("1e-12 fps is outside one frame an hour to 240 fps")),
        ("YUV4MPEG2 W2 H2 F9223372036854775807:1", .rateOutOfRange("9.223372036854776e+18 fps is outside one frame an hour to 240 fps")),
        ("YUV4MPEG2 W4 H2 C444", .unsupportedColorSpace("444")),
        ("YUV4MPEG2 W4 H2 C420p10", .unsupportedColorSpace("420p10")),
        ("YUV4MPEG2 W4 H2 It", .interlaced("t")),
        ("YUV4MPEG2 W4 H2 Im", .interlaced("m")),
    ])
    func rejectsBadHeaders(line: String, problem: Y4MProblem) {
        #expect(throws: problem) { try Y4MHeader(parsing: Substring(line)) }
    }

    @Test func errorTextNamesTheFileAndTheFix() {
        let error = Y4MError(path: "clip.y4m", problem: .unsupportedColorSpace("444"))
        #expect(error.description == "clip.y4m: Y4M colour space 'C444' is not supported; use 4:2:0 8-bit (ffmpeg -pix_fmt yuv420p)")
    }
}
