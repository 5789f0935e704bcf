import Capture
import FrameProcessing
import MediaCore
import TestSupport
import Testing
import VP8

@Suite struct VP8SimulcastEncoderTests {
    /// One picture's encodings, and the picture itself.
    struct Output {
        var index: Int
        var frames: [EncodedFrame]
        var source: I420Buffer
    }

    /// Encodes `count` test-pattern pictures at 30 fps timestamps, calling `before` ahead of each.
    static func encodePattern(
        encoder: VP8SimulcastEncoder, width: Int, height: Int, count: Int, before: (Int) -> Void = { _ in }
    ) throws -> [Output] {
        let renderer = TestPatternRenderer(width: width, height: height)
        return try (0..<count).map { index in
            before(index)
            let buffer = I420Buffer(width: width, height: height)
            renderer.render(index: index, into: buffer)
            let frame = VideoFrame(buffer: buffer, timestampNs: 5_000_000_000 + Int64(index) * VP8EncoderTests.frameIntervalNs)
            return Output(index: index, frames: try encoder.encode(frame), source: buffer)
        }
    }

    /// Decodes every encoding with its own libvpx decoder and compares each picture with the
    /// source scaled by libyuv to that encoding's size; returns each encoding's PSNRs.
    static func decodeEach(_ outputs: [Output], layout: SimulcastLayout) throws -> [[Double]] {
        let decoders = try layout.encodings.map { _ in try VP8TestDecoder() }
        var psnrs = Array(repeating: [Double](), count: layout.encodings.count)
        for output in outputs {
            for frame in output.frames {
                let encoding = layout.encodings[frame.encodingIndex]
                let decoded = try #require(try decoders[frame.encodingIndex].decode(frame.data))
                #expect(decoded.width == encoding.width && decoded.height == encoding.height)
                let reference = I420Buffer(width: encoding.width, height: encoding.height)
                try I420Transform.scale(output.source, into: reference)
                psnrs[frame.encodingIndex].append(try #require(I420Transform.psnr(decoded, reference)))
            }
        }
        return psnrs
    }

    static func settings(kbps: Int) -> VP8EncoderSettings {
        var settings = VP8EncoderSettings(bitrateKbps: kbps)
        settings.temporalLayers = 3
        return settings
    }

    /// Every picture comes out as three frames, quarter, half and full size, lowest first, with
    /// the picture's timestamp; each encoding decodes on its own close to the source at its size.
    @Test func threeEncodingsOf720pDecodeEachAtItsSize() throws {
        let encoder = try VP8SimulcastEncoder(
            settings: Self.settings(kbps: 2500), format: VP8PictureFormat(width: 1280, height: 720), encodings: 3)
        #expect(encoder.encodingBitratesKbps == [150, 500, 1850])
        let outputs = try Self.encodePattern(encoder: encoder, width: 1280, height: 720, count: 24)
        for output in outputs {
            #expect(output.frames.map(\.encodingIndex) == [0, 1, 2])
            #expect(output.frames.map { [$0.width, $0.height] } == [[320, 180], [640, 360], [1280, 720]])
            #expect(output.frames.allSatisfy { $0.timestampNs == 5_000_000_000 + Int64(output.index) * VP8EncoderTests.frameIntervalNs })
            #expect(output.frames.allSatisfy { $0.isKeyframe == (output.index == 0) })
        }
        let psnrs = try Self.decodeEach(outputs, layout: encoder.layout)
        for (encoding, values) in psnrs.enumerated() {
            #expect(values.count == 24)
            #expect(values.min()! > 30 && values.reduce(0, +) / Double(values.count) > 35, "encoding \(encoding): \(values)")
        }
    }

    @Test func twoEncodingsOf360p() throws {
        let encoder = try VP8SimulcastEncoder(
            settings: Self.settings(kbps: 800), format: VP8PictureFormat(width: 640, height: 360), encodings: 2)
        let outputs = try Self.encodePattern(encoder: encoder, width: 640, height: 360, count: 16)
        #expect(outputs.allSatisfy { $0.frames.map { [$0.encodingIndex, $0.width, $0.height] } == [[0, 320, 180], [1, 640, 360]] })
        let psnrs = try Self.decodeEach(outputs, layout: encoder.layout)
        #expect(psnrs.allSatisfy { $0.count == 16 && $0.min()! > 30 }, "\(psnrs)")
    }

    /// Each encoding runs libwebrtc's three-layer pattern on its own.
    @Test func eachEncodingCarriesTheTemporalPattern() throws {
        let encoder = try VP8SimulcastEncoder(
            settings: Self.settings(kbps: 1000), format: VP8PictureFormat(width: 640, height: 360), encodings: 2)
        let outputs = try Self.encodePattern(encoder: encoder, width: 640, height: 360, count: 8)
        for encodingIndex in 0..<2 {
            let layers = outputs.map { $0.frames.first { $0.encodingIndex == encodingIndex }?.temporalLayer?.index }
            #expect(layers == [0, 2, 1, 2, 0, 2, 1, 2], "encoding \(encodingIndex)")
        }
    }

    /// A PLI on one encoding's stream asks for a keyframe in that encoding alone: libvpx's
    /// multi-resolution encoder codes it there and the others go on with delta frames, and every
    /// encoding still decodes.
    @Test(arguments: [0, 1, 2])
    func aKeyframeForOneEncodingComesInThatEncodingOnly(encodingIndex: Int) throws {
        let encoder = try VP8SimulcastEncoder(
            settings: Self.settings(kbps: 2500), format: VP8PictureFormat(width: 1280, height: 720), encodings: 3)
        let outputs = try Self.encodePattern(encoder: encoder, width: 1280, height: 720, count: 16) { index in
            if index == 9 { encoder.requestKeyframe(encodingIndex: encodingIndex) }
        }
        #expect(outputs[9].frames.map(\.isKeyframe) == (0..<3).map { $0 == encodingIndex })
        #expect(outputs[1...].allSatisfy { $0.index == 9 || $0.frames.allSatisfy { !$0.isKeyframe } })
        let psnrs = try Self.decodeEach(outputs, layout: encoder.layout)
        #expect(psnrs.allSatisfy { $0.count == 16 && $0.min()! > 30 }, "\(psnrs)")
    }

    @Test func aKeyframeForEveryEncoding() throws {
        let encoder = try VP8SimulcastEncoder(
            settings: Self.settings(kbps: 1000), format: VP8PictureFormat(width: 640, height: 360), encodings: 2)
        let outputs = try Self.encodePattern(encoder: encoder, width: 640, height: 360, count: 6) { index in
            if index == 3 { encoder.requestKeyframe() }
        }
        #expect(outputs.map { $0.frames.map(\.isKeyframe) } == [[true, true], [false, false], [false, false], [true, true], [false, false], [false, false]])
    }

    /// A total too low for the full-size encoding pauses it: it makes nothing, and once the
    /// total allows it again its first frame is a keyframe and it decodes on.
    @Test func aPausedEncodingMakesNothingAndResumesWithAKeyframe() throws {
        let encoder = try VP8SimulcastEncoder(
            settings: Self.settings(kbps: 2500), format: VP8PictureFormat(width: 1280, height: 720), encodings: 3)
        let outputs = try Self.encodePattern(encoder: encoder, width: 1280, height: 720, count: 30) { index in
            if index == 10 { encoder.setBitrate(kbps: 700) }
            if index == 20 { encoder.setBitrate(kbps: 2500) }
        }
        let indices = outputs.map { $0.frames.map(\.encodingIndex) }
        #expect(indices[..<10].allSatisfy { $0 == [0, 1, 2] })
        #expect(indices[10..<20].allSatisfy { $0 == [0, 1] }, "\(indices)")
        #expect(indices[20...].allSatisfy { $0 == [0, 1, 2] })
        #expect(outputs[20].frames.map(\.isKeyframe) == [false, false, true])
        #expect(outputs[20].frames[2].temporalLayer == EncodedFrame.TemporalLayer(index: 0, isLayerSync: true))
        #expect(outputs[11...].allSatisfy { $0.index == 20 || $0.frames.allSatisfy { !$0.isKeyframe } })
        let psnrs = try Self.decodeEach(outputs, layout: encoder.layout)
        #expect(psnrs.map(\.count) == [30, 30, 20])
        #expect(psnrs.allSatisfy { $0.min()! > 30 }, "\(psnrs)")
    }

    /// An encoding the answer declined is not coded, whichever it is (libvpx codes the ones
    /// above a skipped one without its motion vectors); made active again it starts with a
    /// keyframe, and every encoding decodes throughout.
    @Test(arguments: [0, 1])
    func anInactiveEncodingMakesNothingAndComesBackWithAKeyframe(declined: Int) throws {
        let encoder = try VP8SimulcastEncoder(
            settings: Self.settings(kbps: 2500), format: VP8PictureFormat(width: 1280, height: 720), encodings: 3)
        let sent = [0, 1, 2].filter { $0 != declined }
        encoder.setActiveEncodings(Set(sent))
        let outputs = try Self.encodePattern(encoder: encoder, width: 1280, height: 720, count: 30) { index in
            if index == 20 { encoder.setActiveEncodings([0, 1, 2]) }
        }
        let indices = outputs.map { $0.frames.map(\.encodingIndex) }
        #expect(indices[..<20].allSatisfy { $0 == sent }, "\(indices)")
        #expect(indices[20...].allSatisfy { $0 == [0, 1, 2] }, "\(indices)")
        #expect(outputs[20].frames[declined].isKeyframe)
        #expect(encoder.encodingBitratesKbps[declined] > 0)
        let psnrs = try Self.decodeEach(outputs, layout: encoder.layout)
        #expect(psnrs.map(\.count) == [0, 1, 2].map { $0 == declined ? 10 : 30 })
        #expect(psnrs.allSatisfy { $0.min()! > 30 }, "\(psnrs)")
    }

    /// libwebrtc's choices per encoding: one thread below the top, the denoiser on the two
    /// largest only, cpu-used −4 at the fastest under 352x288.
    @Test func eachEncodingGetsLibwebrtcsSpeedThreadsAndDenoiser() throws {
        var base = Self.settings(kbps: 2500)
        base.threads = 2
        let three = try SimulcastLayout(width: 1280, height: 720, count: 3, temporalLayers: 3)
        let settings = (0..<3).map { VP8SimulcastEncoder.encodingSettings(base, index: $0, of: three, bitrateKbps: 100 * ($0 + 1)) }
        #expect(settings.map(\.threads) == [1, 1, 2])
        #expect(settings.map(\.noiseSensitivity) == [0, 4, 4])
        #expect(settings.map(\.cpuUsed) == [-4, -6, -6])
        #expect(settings.map(\.bitrateKbps) == [100, 200, 300])
        let two = try SimulcastLayout(width: 640, height: 360, count: 2, temporalLayers: 3)
        #expect((0..<2).map { VP8SimulcastEncoder.encodingSettings(base, index: $0, of: two, bitrateKbps: 100).noiseSensitivity } == [0, 4])
    }

    /// A picture of another size (a camera switch) re-initialises every encoding at its new
    /// size, starting with keyframes; a size that cannot be split is an error, not a trap.
    @Test func aNewSizeReinitialisesEveryEncoding() throws {
        let encoder = try VP8SimulcastEncoder(
            settings: Self.settings(kbps: 1000), format: VP8PictureFormat(width: 640, height: 360), encodings: 2)
        let small = try Self.encodePattern(encoder: encoder, width: 640, height: 360, count: 3)
        let large = try Self.encodePattern(encoder: encoder, width: 960, height: 540, count: 3)
        #expect(small.allSatisfy { $0.frames.map(\.width) == [320, 640] })
        #expect(large.allSatisfy { $0.frames.map(\.width) == [480, 960] })
        #expect(large.map { $0.frames.map(\.isKeyframe) } == [[true, true], [false, false], [false, false]])
        #expect(encoder.layout.encodings.map(\.height) == [270, 540])
        #expect(throws: VPXError.self) { try Self.encodePattern(encoder: encoder, width: 320, height: 180, count: 1) }
    }

    /// A keyframe interval (for plain receivers) holds in every encoding.
    @Test func aKeyframeIntervalHoldsInEveryEncoding() throws {
        var settings = Self.settings(kbps: 1000)
        settings.keyframes = .every(seconds: 0.5)
        let encoder = try VP8SimulcastEncoder(settings: settings, format: VP8PictureFormat(width: 640, height: 360), encodings: 2)
        let outputs = try Self.encodePattern(encoder: encoder, width: 640, height: 360, count: 31)
        for encodingIndex in 0..<2 {
            let keyframes = outputs.filter { $0.frames.contains { $0.encodingIndex == encodingIndex && $0.isKeyframe } }.map(\.index)
            #expect(keyframes == [0, 15, 30], "encoding \(encodingIndex)")
        }
    }

    @Test func oneEncodingIsRefused() {
        #expect(throws: VPXError.self) {
            try VP8SimulcastEncoder(settings: Self.settings(kbps: 500), format: VP8PictureFormat(width: 640, height: 360), encodings: 1)
        }
    }
}
