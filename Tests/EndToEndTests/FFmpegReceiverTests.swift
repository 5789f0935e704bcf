import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// `camrtp sdp` first, the receiver from that SDP, then `camrtp send`: the order a person uses.
    @Suite(.serialized) struct FFmpegReceiverTests {
        init() throws {
            try #require(ExternalTool.locate("ffmpeg") != nil, "ffmpeg is needed: apt-get install ffmpeg")
        }

        /// Streams `clip` to an ffmpeg started from `camrtp sdp`; returns what ffmpeg decoded and send's result.
        static func stream(
            _ clip: SourceClip, extra: [String] = [], receiverExtra: [String]? = nil, srtp: Bool = false,
            receiverSilenceSeconds: Int = Int(TestPatience.seconds)
        ) throws -> (decoded: DecodedClip, send: ExternalTool.Result, sdp: String, statsPath: String) {
            let port = UDPPorts.freePair()
            let sdp = clip.folder.file("stream-\(port).sdp"), output = clip.folder.file("out-\(port).y4m")
            let common = ["--source", "y4m:\(clip.path)", "--to", "127.0.0.1:\(port)"] + extra
            let printed = try CamrtpBinary.run(["sdp"] + common + (receiverExtra ?? []))
            #expect(printed.status == 0, "\(printed.stderr)")
            try printed.stdout.write(toFile: sdp, atomically: true, encoding: .utf8)
            let receiver = try Receivers.ffmpeg(sdp: sdp, output: output, srtp: srtp, silenceSeconds: receiverSilenceSeconds)
            #expect(Receivers.waitUntilListening(receiver, port: port))
            let statsPath = clip.folder.file("stats-\(port).json")
            let send = try CamrtpBinary.run(["send"] + common + ["--stats-json", statsPath])
            let received = receiver.wait(timeout: TestPatience.seconds)
            #expect(!received.timedOut, "ffmpeg did not stop after the stream ended")
            let decoded = FileManager.default.fileExists(atPath: output)
                ? try DecodedClip(path: output, source: clip.frames)
                : nil
            return (decoded ?? DecodedClip.empty, send, printed.stdout, statsPath)
        }

        @Test func ffmpegDecodesTheWholeClipFromTheSDP() throws {
            let clip = try SourceClip()
            let (decoded, send, sdp, statsPath) = try Self.stream(clip, extra: ["--ssrc", "0x1234abcd", "--bitrate", "800"])
            #expect(send.status == 0, "\(send.stderr)")
            #expect(sdp.contains("a=ssrc:305441741 cname:camrtp\r\n"))
            #expect(decoded.count == 60)
            #expect(decoded.indices == (0..<60).map { $0 })
            #expect(decoded.width == 320 && decoded.height == 240)
            #expect(decoded.minimumPSNR > 30, "PSNR min \(decoded.minimumPSNR)")
            #expect(decoded.meanPSNR > 33, "PSNR mean \(decoded.meanPSNR)")
            let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: statsPath))) as? [String: Any]
            #expect(stats?["framesEncoded"] as? Int == 60)
            #expect(stats?["framesCaptured"] as? Int == 60)
        }

        /// ffmpeg knows nothing of temporal layers: with three it still decodes every frame.
        @Test func ffmpegDecodesEveryFrameOfThreeTemporalLayers() throws {
            let clip = try SourceClip()
            let (decoded, send, _, _) = try Self.stream(clip, extra: ["--bitrate", "800", "--temporal-layers", "3"])
            #expect(send.status == 0, "\(send.stderr)")
            #expect(decoded.indices == (0..<60).map { $0 })
            #expect(decoded.minimumPSNR > 30, "PSNR min \(decoded.minimumPSNR)")
        }

        @Test func ffmpegDecryptsSRTPFromTheSDPAlone() throws {
            let clip = try SourceClip()
            let key = Data((0..<30).map { UInt8($0 * 7 & 0xFF) }).base64EncodedString()
            let (decoded, send, sdp, _) = try Self.stream(clip, extra: ["--srtp-key", key], srtp: true)
            #expect(send.status == 0, "\(send.stderr)")
            #expect(sdp.contains("m=video") && sdp.contains("RTP/SAVPF 96\r\n"))
            #expect(sdp.contains("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(key)\r\n"))
            #expect(!send.stderr.contains(key), "the key must never be printed")
            #expect(decoded.count == 60)
            #expect(decoded.minimumPSNR > 30)
        }

        @Test func aWrongKeyDecodesNothingAndTheSenderGoesOn() throws {
            let clip = try SourceClip(count: 30)
            let right = Data((0..<30).map { UInt8($0) }).base64EncodedString()
            let wrong = Data((0..<30).map { UInt8(255 - $0) }).base64EncodedString()
            // Under the wrong key ffmpeg cannot read the BYE either: it ends 2 s after the last packet.
            let (decoded, send, _, statsPath) = try Self.stream(
                clip, extra: ["--srtp-key", right], receiverExtra: ["--srtp-key", wrong], srtp: true, receiverSilenceSeconds: 2)
            #expect(send.status == 0, "\(send.stderr)")
            // A busy machine may drop some before encoding; what was encoded was sent.
            let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: statsPath))) as? [String: Any]
            let encoded = try #require(stats?["framesEncoded"] as? Int)
            #expect(encoded > 0 && send.stderr.contains("sent \(encoded) frames"), "\(send.stderr)")
            #expect(decoded.count == 0)
        }

        /// abs-capture-time goes unless `--no-abs-capture-time`, the playout delay with
        /// `--playout-delay`; ffmpeg skips both and decodes every frame.
        @Test func theLatencyExtensionsAreAnnouncedAndFFmpegDecodesPastThem() throws {
            let clip = try SourceClip()
            let (decoded, send, sdp, statsPath) = try Self.stream(clip, extra: ["--playout-delay", "0-100"])
            #expect(send.status == 0, "\(send.stderr)")
            #expect(sdp.contains("a=extmap:9 http://www.webrtc.org/experiments/rtp-hdrext/abs-capture-time\r\n"))
            #expect(sdp.contains("a=extmap:12 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay\r\n"))
            // Every frame sent is decoded (a busy machine may drop some before encoding).
            let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: statsPath))) as? [String: Any]
            let encoded = try #require(stats?["framesEncoded"] as? Int)
            #expect(encoded > 0 && decoded.count == encoded && decoded.minimumPSNR > 30, "\(decoded.count) of \(encoded)")
            let plain = try CamrtpBinary.run(["sdp", "--to", "127.0.0.1:5004", "--no-abs-capture-time"])
            #expect(plain.status == 0 && !plain.stdout.contains("abs-capture-time") && !plain.stdout.contains("playout-delay"))
        }

        @Test func sdpAndSendWriteTheSameSDP() throws {
            let clip = try SourceClip(count: 5)
            let key = Data(repeating: 9, count: 30).base64EncodedString()
            let options = ["--source", "y4m:\(clip.path)", "--to", "127.0.0.1:\(UDPPorts.freePair())", "--ssrc", "42",
                           "--srtp-key", key, "--cvo", "--rotation", "90", "--abs-send-time"]
            let printed = try CamrtpBinary.run(["sdp"] + options)
            let file = clip.folder.file("send.sdp")
            let send = try CamrtpBinary.run(["send"] + options + ["--sdp", file])
            #expect(send.status == 0, "\(send.stderr)")
            #expect(try String(contentsOfFile: file, encoding: .utf8) == printed.stdout)
            #expect(printed.stdout.contains("a=extmap:13 urn:3gpp:video-orientation\r\n"))
            #expect(printed.stdout.contains("a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time\r\n"))
            #expect(try CamrtpBinary.run(["sdp"] + options).stdout == printed.stdout, "deterministic with SSRC and key")
        }
    }
}

extension DecodedClip {
    static let empty = DecodedClip()

    private init() {
        width = 0
        height = 0
        indices = []
        psnrs = []
    }
}
