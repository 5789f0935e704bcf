import Capture
import Foundation
import FrameProcessing
import MediaCore
import TestSupport
import Testing
import VP8

@Suite struct IVFWriterTests {
    @Test func ffmpegDecodesTheFileFrameForFrame() throws {
        try #require(ExternalTool.locate("ffmpeg") != nil, "ffmpeg is needed: apt-get install ffmpeg")
        let folder = TemporaryDirectory()
        let ivf = folder.file("out.ivf"), decoded = folder.file("out.y4m")
        let encoder = try VP8Encoder(settings: VP8EncoderSettings(bitrateKbps: 800), format: VP8PictureFormat(width: 176, height: 144))
        let writer = try IVFWriter(path: ivf, width: 176, height: 144, frameRate: 30)
        let encoded = try VP8EncoderTests.encodePattern(encoder: encoder, width: 176, height: 144, count: 45)
        for item in encoded { try writer.write(item.frame) }
        try writer.close()

        let header = try Data(contentsOf: URL(fileURLWithPath: ivf)).prefix(32)
        #expect(header.prefix(4) == Data("DKIF".utf8))
        #expect(header[16] == 30 && header[20] == 1, "timebase 1/30")
        #expect(header[24] == 45 && header[25] == 0)
        let probe = try ExternalTool("ffprobe").run(["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", ivf])
        #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1.500000")

        let result = try ExternalTool("ffmpeg").run(["-nostdin", "-loglevel", "error", "-i", ivf, "-f", "yuv4mpegpipe", "-y", decoded])
        #expect(result.status == 0, "\(result.stderr)")
        let frames = try Y4MFile.readFrames(decoded).frames
        #expect(frames.count == 45)
        #expect(frames.map { TestPatternRenderer.readIndex(from: $0) } == Array(0..<45))
    }

    @Test func anUnwritablePathIsAClearError() {
        #expect(throws: IVFError.self) { try IVFWriter(path: "/nonexistent/dir/out.ivf", width: 16, height: 16, frameRate: 30) }
    }
}
