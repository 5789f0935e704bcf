import Capture
import Foundation
import MediaCore
import Synchronization
import TestSupport
import Testing

/// Collects copies of what a capturer delivers (holding no pooled buffer) and signals when it
/// finishes or fails.
final class CollectingDelegate: VideoCapturerDelegate {
    struct Captured {
        var width: Int
        var height: Int
        var rotation: VideoRotation
        var timestampNs: Int64
        var bytes: [UInt8]

        var buffer: I420Buffer {
            let buffer = I420Buffer(width: width, height: height)
            bytes.withUnsafeBytes { buffer.bytes.copyMemory(from: $0) }
            return buffer
        }
    }

    struct State {
        var frames: [Captured] = []
        var error: (any Error)?
        var finished = false
    }

    let state = Mutex(State())
    let limit: Int

    init(limit: Int = .max) {
        self.limit = limit
    }

    func capturer(_ capturer: any VideoCapturer, didCapture frame: VideoFrame) {
        let copy = Captured(
            width: frame.width, height: frame.height, rotation: frame.rotation, timestampNs: frame.timestampNs,
            bytes: Array(frame.buffer.bytes))
        state.withLock { $0.frames.append(copy) }
    }

    func capturer(_ capturer: any VideoCapturer, didFail error: any Error) {
        state.withLock { $0.error = error }
    }

    func capturerDidFinish(_ capturer: any VideoCapturer) {
        state.withLock { $0.finished = true }
    }

    /// Runs `capturer` until it finishes, fails or delivers `limit` frames (at most 10 s).
    static func capture(_ capturer: some VideoCapturer, start: () -> Void, limit: Int = .max) -> State {
        let delegate = CollectingDelegate(limit: limit)
        capturer.delegate = delegate
        start()
        delegate.waitForEnd()
        capturer.stopCapture()
        return delegate.state.withLock { $0 }
    }

    /// Waits until the source finished, failed, or delivered `limit` frames (at most 10 s).
    func waitForEnd() {
        for _ in 0..<1000 {
            let done = state.withLock { $0.finished || $0.error != nil || $0.frames.count >= limit }
            if done { return }
            usleep(10_000)
        }
    }
}

@Suite struct Y4MFileSourceTests {
    @Test func oddSizedFramesRoundTripByteForByte() throws {
        let folder = TemporaryDirectory()
        let path = folder.file("odd.y4m")
        try Y4MFile.writeTestPattern(to: path, width: 33, height: 17, count: 5)
        let source = try Y4MFileSource(path: path, pace: .fast)
        let state = CollectingDelegate.capture(source, start: source.startCapture)
        let expected = try Y4MFile.readFrames(path).frames
        #expect(state.finished)
        #expect(state.frames.count == 5)
        for (copy, frame) in zip(state.frames, expected) { #expect(copy.bytes == Array(frame.bytes)) }
        #expect(state.frames.map(\.width) == Array(repeating: 33, count: 5))
        let times = state.frames.map(\.timestampNs)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test func loopsWhenAsked() throws {
        let folder = TemporaryDirectory()
        let path = folder.file("loop.y4m")
        try Y4MFile.writeTestPattern(to: path, width: 64, height: 48, count: 3)
        let source = try Y4MFileSource(path: path, loop: true, pace: .fast)
        let state = CollectingDelegate.capture(source, start: source.startCapture, limit: 8)
        let indices = state.frames.prefix(8).map { TestPatternRenderer.readIndex(from: $0.buffer) }
        #expect(indices == [0, 1, 2, 0, 1, 2, 0, 1])
    }

    @Test func monoFramesGetNeutralChroma() throws {
        let folder = TemporaryDirectory()
        let path = folder.file("mono.y4m")
        var data = Data("YUV4MPEG2 W4 H2 F30:1 Cmono\nFRAME\n".utf8)
        data.append(contentsOf: [1, 2, 3, 4, 5, 6, 7, 8])
        try data.write(to: URL(fileURLWithPath: path))
        let source = try Y4MFileSource(path: path, pace: .fast)
        let state = CollectingDelegate.capture(source, start: source.startCapture)
        let copy = try #require(state.frames.first)
        #expect(copy.bytes == [1, 2, 3, 4, 5, 6, 7, 8, 128, 128, 128, 128])
    }

    /// The good frames before the damage all arrive and the stream ends as at a clean end, so a
    /// pipeline encodes them; the damage is kept for the caller to report.
    @Test func aTruncatedLastFrameEndsTheStreamAfterTheGoodOnesAndIsKept() throws {
        let folder = TemporaryDirectory()
        let path = folder.file("cut.y4m")
        try Y4MFile.writeTestPattern(to: path, width: 16, height: 16, count: 3)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: try handle.seekToEnd() - 100)
        try handle.close()
        let source = try Y4MFileSource(path: path, pace: .fast)
        let state = CollectingDelegate.capture(source, start: source.startCapture)
        #expect(state.frames.count == 2)
        #expect(state.finished && state.error == nil)
        #expect(source.damage?.description == "\(path): truncated: frame 2 has 284 of 384 bytes")
    }

    /// A pipe is read once, frame for frame: the frame read to check the stream is not lost.
    @Test func aPipeDeliversEveryFrameFromTheFirst() throws {
        let folder = TemporaryDirectory()
        let clip = folder.file("clip.y4m"), fifo = folder.file("pipe.y4m")
        try Y4MFile.writeTestPattern(to: clip, width: 64, height: 48, count: 6)
        #expect(mkfifo(fifo, 0o600) == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: clip))
        let writer = MediaThread(name: "fifo-writer") {
            FileHandle(forWritingAtPath: fifo)?.write(bytes)
        }
        let input = try Y4MInput(path: fifo)
        #expect(!input.isSeekable)
        #expect(throws: Y4MError.self) { try Y4MFileSource(input: input, loop: true) }
        let source = try Y4MFileSource(input: input, pace: .fast)
        let state = CollectingDelegate.capture(source, start: source.startCapture)
        writer.join()
        #expect(state.finished && source.damage == nil)
        #expect(state.frames.map { TestPatternRenderer.readIndex(from: $0.buffer) } == [0, 1, 2, 3, 4, 5])
    }

    @Test func aPipeCannotLoop() throws {
        do {
            _ = try Y4MFileSource(input: try pipeInput(), loop: true)
            Issue.record("looping a pipe was accepted")
        } catch {
            #expect("\(error)".hasSuffix(
                ": a pipe cannot be looped, as it cannot go back to its first frame; save it to a file first, or leave out --loop"))
        }
    }

    /// A `Y4MInput` on a FIFO holding a one-frame clip.
    private func pipeInput() throws -> Y4MInput {
        let folder = TemporaryDirectory()
        let fifo = folder.file("one.y4m")
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = MediaThread(name: "fifo-writer") {
            FileHandle(forWritingAtPath: fifo)?.write(Data("YUV4MPEG2 W2 H2 F30:1\nFRAME\n\u{1}\u{2}\u{3}\u{4}\u{5}\u{6}".utf8))
        }
        defer { writer.join() }
        return try Y4MInput(path: fifo)
    }

    @Test func badFilesFailBeforeStreaming() throws {
        let folder = TemporaryDirectory()
        let cases: [(String, Data, String)] = [
            ("empty.y4m", Data(), "not a usable Y4M file: no header line ending in a newline"),
            ("text.y4m", Data("hello\n".utf8), "not a usable Y4M file: it does not start with YUV4MPEG2"),
            ("noframes.y4m", Data("YUV4MPEG2 W4 H2\n".utf8), "the Y4M file has a header but no frames"),
            ("short.y4m", Data("YUV4MPEG2 W4 H2\nFRAME\n\u{1}\u{2}".utf8), "truncated: frame 0 has 2 of 12 bytes"),
            ("garbled.y4m", Data("YUV4MPEG2 W4 H2\nFRAMX\n".utf8), "frame 0 does not start with FRAME; the file is damaged"),
            ("yuv444.y4m", Data("YUV4MPEG2 W4 H2 C444\n".utf8), "Y4M colour space 'C444' is not supported; use 4:2:0 8-bit (ffmpeg -pix_fmt yuv420p)"),
            ("params.y4m", Data(("YUV4MPEG2 W4 H2\nFRAME " + String(repeating: "X", count: 2000) + "\n").utf8),
             "frame 0's FRAME line runs past 1024 bytes without ending; the file is damaged"),
            ("huge.y4m", Data("YUV4MPEG2 W16384 H16\n".utf8),
             "16384x16 has a side outside 1...16383, the most VP8 codes; scale it down first (ffmpeg -vf scale=1920:-2)"),
            ("8k.y4m", Data("YUV4MPEG2 W8000 H8000\n".utf8),
             "8000x8000 is 64000000 pixels; camrtp takes at most 9437184, such as 3840x2160 or 4096x2304; scale it down first (ffmpeg -vf scale=1920:-2)"),
        ]
        for (name, contents, message) in cases {
            let path = folder.file(name)
            try contents.write(to: URL(fileURLWithPath: path))
            #expect(throws: Y4MError.self) { try Y4MFileSource(path: path) }
            do {
                _ = try Y4MFileSource(path: path)
            } catch {
                #expect(error.description == "\(path): \(message)")
            }
        }
    }

    @Test func aMissingFileSaysSo() {
        do {
            _ = try Y4MFileSource(path: "/nonexistent/clip.y4m")
            Issue.record("opening a missing file succeeded")
        } catch {
            #expect(error.description == "/nonexistent/clip.y4m: cannot open: No such file or directory")
        }
    }
}
