import Capture
import FrameProcessing
import MediaCore
import TestSupport
import Testing
import VP8

@Suite struct VP8EncoderTests {
    static let frameIntervalNs: Int64 = 33_333_333

    /// Encodes `count` test-pattern frames at 30 fps timestamps, calling `before` ahead of each.
    static func encodePattern(
        encoder: VP8Encoder, width: Int, height: Int, count: Int, pool: I420BufferPool = I420BufferPool(),
        before: (Int) -> Void = { _ in }
    ) throws -> [(index: Int, frame: EncodedFrame, source: [UInt8])] {
        let renderer = TestPatternRenderer(width: width, height: height)
        var output: [(Int, EncodedFrame, [UInt8])] = []
        for index in 0..<count {
            before(index)
            let buffer = try #require(pool.makeBuffer(width: width, height: height))
            renderer.render(index: index, into: buffer)
            let frame = VideoFrame(buffer: buffer, rotation: .deg90, timestampNs: 5_000_000_000 + Int64(index) * frameIntervalNs)
            if let encoded = try encoder.encode(frame) { output.append((index, encoded, Array(buffer.bytes))) }
        }
        return output
    }

    @Test func encodeThenDecodeKeepsEveryFrameAboveAPSNRFloor() throws {
        let encoder = try VP8Encoder(settings: VP8EncoderSettings(bitrateKbps: 1000), format: VP8PictureFormat(width: 320, height: 240))
        let encoded = try Self.encodePattern(encoder: encoder, width: 320, height: 240, count: 60)
        #expect(encoded.count == 60)
        #expect(encoded.first?.frame.isKeyframe == true)
        #expect(encoded.dropFirst().allSatisfy { !$0.frame.isKeyframe })
        let decoder = try VP8TestDecoder()
        var psnrs: [Double] = []
        for (index, frame, source) in encoded {
            #expect(frame.timestampNs == 5_000_000_000 + Int64(index) * Self.frameIntervalNs)
            #expect(frame.rotation == .deg90)
            let decoded = try #require(try decoder.decode(frame.data))
            #expect(decoded.width == 320 && decoded.height == 240)
            let original = I420Buffer(width: 320, height: 240)
            source.withUnsafeBytes { original.bytes.copyMemory(from: $0) }
            psnrs.append(try #require(I420Transform.psnr(decoded, original)))
            #expect(TestPatternRenderer.readIndex(from: decoded) == index)
        }
        #expect(psnrs.min()! > 28, "PSNR per frame: \(psnrs)")
        #expect(psnrs.reduce(0, +) / Double(psnrs.count) > 32)
    }

    @Test func aRequestedKeyframeComesOnTheNextFrame() throws {
        let encoder = try VP8Encoder(settings: VP8EncoderSettings(), format: VP8PictureFormat(width: 160, height: 120))
        let encoded = try Self.encodePattern(encoder: encoder, width: 160, height: 120, count: 30) { index in
            if index == 17 { encoder.requestKeyframe() }
        }
        #expect(encoded.filter(\.frame.isKeyframe).map(\.index) == [0, 17])
    }

    @Test func aKeyframeIntervalForcesPeriodicKeyframes() throws {
        let encoder = try VP8Encoder(
            settings: VP8EncoderSettings(keyframes: .every(seconds: 1)), format: VP8PictureFormat(width: 160, height: 120))
        let encoded = try Self.encodePattern(encoder: encoder, width: 160, height: 120, count: 95)
        #expect(encoded.filter(\.frame.isKeyframe).map(\.index) == [0, 30, 60, 90])
    }

    @Test func theBitrateChangesWithoutReinitialising() throws {
        let encoder = try VP8Encoder(settings: VP8EncoderSettings(bitrateKbps: 2000), format: VP8PictureFormat(width: 320, height: 240))
        let encoded = try Self.encodePattern(encoder: encoder, width: 320, height: 240, count: 90) { index in
            if index == 30 { encoder.setBitrate(kbps: 100) }
        }
        #expect(encoder.settings.bitrateKbps == 100)
        #expect(encoded.filter(\.frame.isKeyframe).map(\.index) == [0])
        let high = encoded.filter { (10..<30).contains($0.index) }.map(\.frame.data.count).reduce(0, +)
        let low = encoded.filter { (70..<90).contains($0.index) }.map(\.frame.data.count).reduce(0, +)
        #expect(low * 4 < high, "bytes at 2000 kbit/s: \(high), at 100 kbit/s: \(low)")
    }

    @Test func aNewSizeReinitialisesWithAKeyframe() throws {
        let encoder = try VP8Encoder(settings: VP8EncoderSettings(), format: VP8PictureFormat(width: 160, height: 120))
        _ = try Self.encodePattern(encoder: encoder, width: 160, height: 120, count: 5)
        let resized = try Self.encodePattern(encoder: encoder, width: 99, height: 67, count: 3)
        #expect(resized.first?.frame.isKeyframe == true)
        #expect(resized.first?.frame.width == 99 && resized.first?.frame.height == 67)
        let decoded = try VP8TestDecoder().decode(resized[0].frame.data)
        #expect(decoded?.width == 99 && decoded?.height == 67)
    }

    @Test func steadyEncodingAllocatesNoPicturePerFrame() throws {
        let pool = I420BufferPool()
        let encoder = try VP8Encoder(settings: VP8EncoderSettings(), format: VP8PictureFormat(width: 160, height: 120))
        _ = try Self.encodePattern(encoder: encoder, width: 160, height: 120, count: 100, pool: pool)
        #expect(pool.allocationCount == 1)
    }

    @Test func badSettingsAreClearErrors() {
        let format = VP8PictureFormat(width: 160, height: 120)
        #expect(throws: VPXError.self) { try VP8Encoder(settings: VP8EncoderSettings(), format: VP8PictureFormat(width: 0, height: 120)) }
        #expect(throws: VPXError.self) { try VP8Encoder(settings: VP8EncoderSettings(), format: VP8PictureFormat(width: 16_384, height: 120)) }
        #expect(throws: VPXError.self) { try VP8Encoder(settings: VP8EncoderSettings(bitrateKbps: 0), format: format) }
        for seconds in [0, -1, Double.infinity, .nan] {
            #expect(throws: VPXError.self, "keyframe interval \(seconds)") {
                try VP8Encoder(settings: VP8EncoderSettings(keyframes: .every(seconds: seconds)), format: format)
            }
        }
    }

    /// Keyframes on request only: one to start, then none however long the stream runs.
    @Test func onRequestMakesNoPeriodicKeyframes() throws {
        let encoder = try VP8Encoder(settings: VP8EncoderSettings(keyframes: .onRequest), format: VP8PictureFormat(width: 160, height: 120))
        let encoded = try Self.encodePattern(encoder: encoder, width: 160, height: 120, count: 95)
        #expect(encoded.filter(\.frame.isKeyframe).map(\.index) == [0])
    }

    /// With three layers the frames carry libwebrtc's pattern, and the base layer alone, or the
    /// two lower layers, decode without the frames above them: a receiver that drops them sees
    /// the picture at a quarter or half the rate.
    @Test(arguments: [0, 1, 2])
    func eachLayerDecodesWithoutTheLayersAboveIt(highestLayer: Int) throws {
        var settings = VP8EncoderSettings(bitrateKbps: 600)
        settings.temporalLayers = 3
        let encoder = try VP8Encoder(settings: settings, format: VP8PictureFormat(width: 320, height: 240))
        let encoded = try Self.encodePattern(encoder: encoder, width: 320, height: 240, count: 48)
        #expect(encoded.count == 48, "no frame dropped at this rate")
        #expect(encoded.prefix(8).map { $0.frame.temporalLayer?.index } == [0, 2, 1, 2, 0, 2, 1, 2])
        #expect(encoded.first?.frame.temporalLayer?.isLayerSync == true)
        let decoder = try VP8TestDecoder()
        var decodedIndices: [Int] = []
        var psnrs: [Double] = []
        for (index, frame, source) in encoded where frame.temporalLayer.map({ $0.index <= highestLayer }) ?? true {
            let decoded = try #require(try decoder.decode(frame.data))
            let original = I420Buffer(width: 320, height: 240)
            source.withUnsafeBytes { original.bytes.copyMemory(from: $0) }
            psnrs.append(try #require(I420Transform.psnr(decoded, original)))
            #expect(TestPatternRenderer.readIndex(from: decoded) == index)
            decodedIndices.append(index)
        }
        #expect(decodedIndices == Array(stride(from: 0, to: 48, by: [4, 2, 1][highestLayer])))
        #expect(psnrs.min()! > 26, "PSNR per frame: \(psnrs)")
    }

    @Test func temporalLayerCountsOutsideOneToThreeAreRefused() {
        for count in [0, 4, -1] {
            var settings = VP8EncoderSettings()
            settings.temporalLayers = count
            #expect(throws: VPXError.self, "\(count) layers") {
                try VP8Encoder(settings: settings, format: VP8PictureFormat(width: 160, height: 120))
            }
        }
    }

    @Test func webRTCThreadAndIntraChoices() {
        #expect(VP8EncoderSettings.defaultThreads(width: 1280, height: 720, cores: 2) == 1)
        #expect(VP8EncoderSettings.defaultThreads(width: 1280, height: 720, cores: 4) == 2)
        #expect(VP8EncoderSettings.defaultThreads(width: 640, height: 480, cores: 16) == 1)
        #expect(VP8EncoderSettings.defaultThreads(width: 1920, height: 1080, cores: 6) == 3)
        #expect(VP8EncoderSettings.defaultThreads(width: 1920, height: 1080, cores: 16) == 8)
        #expect(VP8EncoderSettings().maxIntraBitratePercent(frameRate: 30) == 900)
        #expect(VP8EncoderSettings().maxIntraBitratePercent(frameRate: 5) == 300)
    }
}
