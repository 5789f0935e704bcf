import FrameProcessing
import MediaCore
import TestSupport
import Testing
import VP8

/// A file is not a stream: the recording profile spends the bits a hard picture needs and keeps
/// every frame, where a live stream's buffer model caps keyframes and drops frames.
@Suite struct RecordingProfileTests {
    static let width = 320
    static let height = 240
    static let frameIntervalNs: Int64 = 33_333_333

    /// Black and white cells of 2×2 pixels, scrolling up 2 rows a frame with a new random row at
    /// the bottom (like ffmpeg's `cellauto`): all detail, no flat area, new content every frame.
    static func scrollingCells(count: Int) -> [I420Buffer] {
        var random = SplitMix64(state: 19)
        let cellRows = (height + 2 * count) / 2
        let cells = (0..<(cellRows * width / 2)).map { _ in random.next() & 1 == 0 ? UInt8(16) : 235 }
        return (0..<count).map { index in
            let buffer = I420Buffer(width: width, height: height)
            buffer.fill(y: 128, u: 128, v: 128)
            for row in 0..<height {
                let cellRow = row / 2 + index
                for column in 0..<width {
                    buffer.dataY[row * buffer.strideY + column] = cells[cellRow * width / 2 + column / 2]
                }
            }
            return buffer
        }
    }

    static func encode(_ pictures: [I420Buffer], settings: VP8EncoderSettings) throws -> [(index: Int, frame: EncodedFrame)] {
        let encoder = try VP8Encoder(settings: settings, format: VP8PictureFormat(width: width, height: height))
        return try pictures.enumerated().compactMap { index, picture in
            let frame = VideoFrame(buffer: picture, rotation: .deg0, timestampNs: Int64(index) * frameIntervalNs)
            return try encoder.encode(frame).map { (index, $0) }
        }
    }

    @Test func theRecordingProfileIsLibvpxsOwnForAFile() {
        let settings = VP8EncoderSettings.recording(bitrateKbps: 800, cpuUsed: -6, threads: 1, keyframes: .every(seconds: 2))
        #expect(settings.rateControl == .variable)
        #expect(!settings.capsKeyframeSize)
        #expect(settings.dropFrameThreshold == 0)
        #expect((settings.minQuantizer, settings.maxQuantizer) == (4, 63))
        #expect((settings.bufferInitialMs, settings.bufferOptimalMs, settings.bufferSizeMs) == (4000, 5000, 6000))
        #expect((settings.undershootPercent, settings.overshootPercent) == (100, 100))
        #expect((settings.noiseSensitivity, settings.staticThreshold) == (0, 0))
        #expect((settings.bitrateKbps, settings.cpuUsed, settings.threads, settings.keyframes) == (800, -6, 1, .every(seconds: 2)))
        let stream = VP8EncoderSettings(bitrateKbps: 800)
        #expect(stream.rateControl == .constant && stream.capsKeyframeSize && stream.dropFrameThreshold == 30)
    }

    /// At 100 kbit/s the clip needs many times its share: a stream drops frames to hold the rate,
    /// a recording keeps all of them.
    @Test func aRecordingKeepsEveryFrameOfAHardClip() throws {
        let pictures = Self.scrollingCells(count: 40)
        let stream = try Self.encode(pictures, settings: VP8EncoderSettings(bitrateKbps: 100, threads: 1))
        let recording = try Self.encode(pictures, settings: .recording(bitrateKbps: 100, threads: 1))
        #expect(stream.count < pictures.count, "the live profile should drop frames of this clip, kept \(stream.count)")
        #expect(recording.map(\.index) == Array(pictures.indices))
    }

    /// A stream caps its keyframe near 9 frames' share (WebRTC's 900 % at 30 fps) so that the frames
    /// behind it are not held up; a file's keyframe takes what the picture needs and looks better.
    @Test func aRecordingsKeyframeIsNotCapped() throws {
        let pictures = Self.scrollingCells(count: 1)
        let stream = try #require(try Self.encode(pictures, settings: VP8EncoderSettings(bitrateKbps: 400, threads: 1)).first)
        let recording = try #require(try Self.encode(pictures, settings: .recording(bitrateKbps: 400, threads: 1)).first)
        #expect(stream.frame.isKeyframe && recording.frame.isKeyframe)
        let streamPSNR = try Self.psnr(stream.frame, pictures[0])
        let recordingPSNR = try Self.psnr(recording.frame, pictures[0])
        #expect(recording.frame.data.count > stream.frame.data.count * 5 / 4,
                "keyframe bytes: recording \(recording.frame.data.count), stream \(stream.frame.data.count)")
        #expect(recordingPSNR > streamPSNR + 6, "keyframe PSNR: recording \(recordingPSNR) dB, stream \(streamPSNR) dB")
    }

    static func psnr(_ frame: EncodedFrame, _ source: I420Buffer) throws -> Double {
        let decoded = try #require(try VP8TestDecoder().decode(frame.data))
        return try #require(I420Transform.psnr(decoded, source))
    }
}
