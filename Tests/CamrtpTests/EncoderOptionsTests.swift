import Testing
import VP8
@testable import CamrtpCLI

/// `record` encodes with the recording profile and the streaming commands with WebRTC's; the
/// options given on the command line apply to either.
@Suite struct EncoderOptionsTests {
    @Test func recordGetsTheRecordingProfile() throws {
        let options = try EncoderOptions.parse(["--bitrate", "400", "--threads", "1"])
        #expect(options.recordingSettings == .recording(bitrateKbps: 400, threads: 1, keyframes: .every(seconds: 2)))
        #expect(options.settings(defaultKeyframeIntervalSeconds: 2) == VP8EncoderSettings(bitrateKbps: 400, threads: 1, keyframes: .every(seconds: 2)))
    }

    @Test func theDenoiserAndStaticThresholdOptionsOverrideEitherProfile() throws {
        let options = try EncoderOptions.parse(["--noise-sensitivity", "4", "--static-threshold", "1", "--keyframe-interval", "0"])
        let recording = options.recordingSettings
        #expect((recording.noiseSensitivity, recording.staticThreshold, recording.keyframes) == (4, 1, .onRequest))
        #expect(recording.rateControl == .variable)
        let stream = try EncoderOptions.parse(["--noise-sensitivity", "0"]).settings(defaultKeyframeIntervalSeconds: 0)
        #expect((stream.noiseSensitivity, stream.staticThreshold, stream.rateControl) == (0, 1, .constant))
    }
}
