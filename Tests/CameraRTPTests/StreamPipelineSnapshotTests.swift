import Adaptation
import CameraRTP
import Capture
import ImageEncoding
import MediaCore
import Synchronization
import TestSupport
import Testing
import VP8

/// A capturer that starts and never delivers a frame.
final class SilentCapturer: VideoCapturer {
    private let slot = Mutex<(any VideoCapturerDelegate)?>(nil)

    var delegate: (any VideoCapturerDelegate)? {
        get { slot.withLock { $0 } }
        set { slot.withLock { $0 = newValue } }
    }

    func stopCapture() {}
}

@Suite struct StreamPipelineSnapshotTests {
    static let encoder = VP8EncoderSettings(bitrateKbps: 300)

    static func isPipelineStopped(_ error: any Error) -> Bool {
        if case SnapshotError.pipelineStopped = error { true } else { false }
    }

    @Test func aSnapshotAfterThePipelineStoppedFailsAtOnce() async throws {
        let source = CaptureSource.testPattern(width: 64, height: 48, fps: 30, pace: .fast, rotation: .deg0)
        let pipeline = try StreamPipeline(
            source: source, configuration: PipelineConfiguration(encoder: Self.encoder, pace: .fast, frameLimit: 5),
            sink: CollectingSink())
        _ = try await pipeline.run()
        await #expect(performing: { try await pipeline.snapshot(format: .jpeg) }, throws: Self.isPipelineStopped)
    }

    @Test func aPipelineThatStopsWhileASnapshotWaitsEndsTheWait() async throws {
        let source = CaptureSource(
            capturer: SilentCapturer(), width: 64, height: 48, fps: 30, summary: "silence", canRunFast: false,
            start: { completion in completion(nil) })
        let pipeline = try StreamPipeline(source: source, configuration: PipelineConfiguration(encoder: Self.encoder), sink: CollectingSink())
        let run = Task { try await pipeline.run() }
        let snapshot = Task { try await pipeline.snapshot(format: .png) }
        pipeline.requestStop()
        let stats = try await run.value
        #expect(stats.framesCaptured == 0)
        await #expect(performing: { try await snapshot.value }, throws: Self.isPipelineStopped)
    }

    @Test func aQualityOutsideOneToHundredIsRefusedBeforeWaiting() async throws {
        let source = CaptureSource(
            capturer: SilentCapturer(), width: 64, height: 48, fps: 30, summary: "silence", canRunFast: false,
            start: { completion in completion(nil) })
        let pipeline = try StreamPipeline(source: source, configuration: PipelineConfiguration(encoder: Self.encoder), sink: CollectingSink())
        await #expect {
            try await pipeline.snapshot(format: .jpeg, quality: 101)
        } throws: { error in
            if case SnapshotError.encodingFailed(.invalidQuality(101)) = error { true } else { false }
        }
    }
}
