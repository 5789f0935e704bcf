@testable import CameraRTP
import Capture
import Foundation
import MediaCore
import Synchronization
import TestSupport
import Testing
import VP8

@Suite struct StreamPipelineTests {
    static func settings(_ width: Int, _ height: Int) -> VP8EncoderSettings {
        VP8EncoderSettings(bitrateKbps: 500)
    }

    @Test func fastPaceEncodesEveryFrameOfAFileSource() async throws {
        let source = CaptureSource.testPattern(width: 160, height: 120, fps: 30, pace: .fast, rotation: .deg0)
        let sink = CollectingSink()
        let pipeline = try StreamPipeline(
            source: source, configuration: PipelineConfiguration(encoder: Self.settings(160, 120), pace: .fast, frameLimit: 120),
            sink: sink)
        let stats = try await pipeline.run()
        #expect(stats.framesCaptured == 120)
        #expect(stats.framesEncoded + stats.totalDropped == 120)
        #expect(stats.framesDropped["late"] == nil && stats.framesDropped["tooOld"] == nil)
        #expect(sink.finished)
        let times = sink.frames.map(\.timestampNs)
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 == 33_333_333 }, "media time, one interval apart")
    }

    /// With simulcast the sink gets each picture's encodings lowest first, all with the picture's
    /// time, and a picture counts once in the statistics.
    @Test func simulcastHandsTheSinkEveryEncodingLowestFirst() async throws {
        let source = CaptureSource.testPattern(width: 640, height: 360, fps: 30, pace: .fast, rotation: .deg0)
        let sink = CollectingSink()
        var configuration = PipelineConfiguration(encoder: VP8EncoderSettings(bitrateKbps: 800), pace: .fast, frameLimit: 12)
        configuration.simulcast = 2
        configuration.encoder.temporalLayers = 3
        let pipeline = try StreamPipeline(source: source, configuration: configuration, sink: sink)
        let stats = try await pipeline.run()
        #expect(stats.framesCaptured == 12)
        #expect(stats.framesEncoded == 12)
        #expect(stats.keyframes == 1)
        let frames = sink.frames
        #expect(frames.map(\.encodingIndex) == Array(repeating: [0, 1], count: 12).flatMap { $0 })
        #expect(frames.map(\.width) == Array(repeating: [320, 640], count: 12).flatMap { $0 })
        for pair in stride(from: 0, to: frames.count, by: 2) {
            #expect(frames[pair].timestampNs == frames[pair + 1].timestampNs)
        }
        #expect(frames.prefix(2).allSatisfy { $0.isKeyframe }, "both start with a keyframe")
        #expect(frames.dropFirst(2).allSatisfy { !$0.isKeyframe })
    }

    @Test func aSlowSinkInRealTimeDropsLateFramesAndTheBooksBalance() async throws {
        // 60 fps in, a sink that takes 40 ms a frame: the mailbox must drop, not queue.
        let source = CaptureSource.testPattern(width: 160, height: 120, fps: 60, pace: .realtime, rotation: .deg0)
        let sink = CollectingSink(delayNs: 40_000_000)
        let pipeline = try StreamPipeline(
            source: source, configuration: PipelineConfiguration(encoder: Self.settings(160, 120), frameLimit: 60),
            sink: sink)
        let stats = try await pipeline.run()
        #expect(stats.framesCaptured == 60)
        #expect(stats.framesEncoded + stats.totalDropped == stats.framesCaptured)
        // The sink takes 40 ms a frame and frames come every 17 ms: some must be replaced in the
        // one-slot mailbox rather than queued.
        #expect((stats.framesDropped["late"] ?? 0) > 0)
    }

    @Test func durationStopsARealTimeRun() async throws {
        let source = CaptureSource.testPattern(width: 64, height: 48, fps: 30, pace: .realtime, rotation: .deg0)
        let pipeline = try StreamPipeline(
            source: source, configuration: PipelineConfiguration(encoder: Self.settings(64, 48), durationSeconds: 0.5),
            sink: CollectingSink())
        let stats = try await pipeline.run()
        // It ran for the duration, and the capture grid never bursts to catch up: no more frames
        // than the time it ran holds at 30 fps.
        #expect(stats.durationSeconds >= 0.5)
        #expect(stats.framesCaptured <= Int(stats.durationSeconds * 30) + 1, "\(stats.framesCaptured) frames in \(stats.durationSeconds) s")
        #expect(stats.framesEncoded + stats.totalDropped == stats.framesCaptured)
    }

    @Test func cancellingTheTaskStopsCleanly() async throws {
        let source = CaptureSource.testPattern(width: 64, height: 48, fps: 30, pace: .realtime, rotation: .deg0)
        let pipeline = try StreamPipeline(
            source: source, configuration: PipelineConfiguration(encoder: Self.settings(64, 48)), sink: CollectingSink())
        let task = Task { try await pipeline.run() }
        for _ in 0..<500 where pipeline.stats.snapshot.framesCaptured < 4 {
            try await Task.sleep(for: .milliseconds(10))
        }
        task.cancel()
        let stats = try await task.value
        #expect(stats.framesCaptured > 3)
        #expect(stats.framesEncoded + stats.totalDropped == stats.framesCaptured)
    }

    @Test func eventsReportTheRun() async throws {
        let source = CaptureSource.testPattern(width: 64, height: 48, fps: 30, pace: .fast, rotation: .deg0)
        let pipeline = try StreamPipeline(
            source: source, configuration: PipelineConfiguration(encoder: Self.settings(64, 48), pace: .fast, frameLimit: 10),
            sink: CollectingSink())
        let collected = Task {
            var names: [String] = []
            for await event in pipeline.events {
                switch event {
                case .started: names.append("started")
                case .keyframeSent: names.append("keyframe")
                case .stopped(let stats): names.append("stopped \(stats.framesCaptured)")
                default: break
                }
            }
            return names
        }
        let stats = try await pipeline.run()
        let names = await collected.value
        #expect(names.filter { $0 == "started" }.count == 1)
        #expect(names.filter { $0 == "keyframe" }.count == stats.keyframes && stats.keyframes >= 1)
        #expect(names.last == "stopped 10")
    }

    @Test func aSinkErrorStopsTheRunAndIsThrown() async throws {
        final class FailingSink: EncodedFrameSink {
            struct Broken: Error {}
            func attach(encoder: any EncoderControl, reporter: SinkReporter) {}
            func consume(_ frame: EncodedFrame) throws { throw Broken() }
            func finish() throws {}
        }
        let source = CaptureSource.testPattern(width: 64, height: 48, fps: 30, pace: .fast, rotation: .deg0)
        let pipeline = try StreamPipeline(
            source: source, configuration: PipelineConfiguration(encoder: Self.settings(64, 48), pace: .fast, frameLimit: 1000),
            sink: FailingSink())
        await #expect(throws: FailingSink.Broken.self) { try await pipeline.run() }
        let stats = pipeline.stats.snapshot
        #expect(stats.framesEncoded + stats.totalDropped == stats.framesCaptured)
    }
}

@Suite struct OutputFormatTests {
    @Test func theEncoderStartsAtTheSizeTheAdapterWillDeliver() {
        let source = CaptureSource.testPattern(width: 1280, height: 720, fps: 30, pace: .realtime, rotation: .deg90)
        var configuration = PipelineConfiguration(
            outputSize: (640, 480), maxFps: 15)
        // Cropped to 4:3 and scaled; the rotation travels as metadata, so no swap.
        #expect(configuration.outputFormat(for: source) == VP8PictureFormat(width: 640, height: 480, frameRate: 15))
        configuration.adaptation.applyRotation = true
        #expect(configuration.outputFormat(for: source) == VP8PictureFormat(width: 480, height: 640, frameRate: 15))
        configuration.outputSize = nil
        configuration.maxFps = 60
        #expect(configuration.outputFormat(for: source) == VP8PictureFormat(width: 720, height: 1280, frameRate: 30), "never above the source's rate")
    }
}

/// The life cycle cannot be misused: a pipeline runs once, and stopping one that never ran
/// neither blocks nor runs it.
@Suite struct PipelineLifeCycleTests {
    static func pipeline() throws -> StreamPipeline {
        try StreamPipeline(
            source: .testPattern(width: 64, height: 48, fps: 30, pace: .fast, rotation: .deg0),
            configuration: PipelineConfiguration(pace: .fast, frameLimit: 3), sink: CollectingSink())
    }

    @Test func stopBeforeStartReturnsAndTheRunIsEmpty() async throws {
        let pipeline = try Self.pipeline()
        pipeline.stop()
        let stats = try await pipeline.run()
        #expect(stats.framesCaptured == 0)
        try pipeline.start()
        var events = 0
        for await _ in pipeline.events { events += 1 }
        #expect(events == 0, "the event stream ends without events")
    }

    @Test func aSecondRunThrowsInsteadOfReturningOldFigures() async throws {
        let pipeline = try Self.pipeline()
        let first = try await pipeline.run()
        #expect(first.framesCaptured == 3)
        await #expect(throws: StreamPipelineError.self) { try await pipeline.run() }
        #expect(throws: StreamPipelineError.self) { try pipeline.start() }
    }

    @Test func anInfiniteDurationRunsUntilStopped() async throws {
        var configuration = PipelineConfiguration(pace: .fast, frameLimit: 5)
        configuration.durationSeconds = .infinity
        let pipeline = try StreamPipeline(
            source: .testPattern(width: 64, height: 48, fps: 30, pace: .fast, rotation: .deg0), configuration: configuration,
            sink: CollectingSink())
        let stats = try await pipeline.run()
        #expect(stats.framesCaptured == 5)
    }

    /// A sink that reports the network congested makes the pipeline drop frames before encoding.
    @Test func congestionDropsFramesBeforeEncoding() async throws {
        let sink = CollectingSink()
        let pipeline = try StreamPipeline(
            source: .testPattern(width: 64, height: 48, fps: 30, pace: .fast, rotation: .deg0),
            configuration: PipelineConfiguration(pace: .fast, frameLimit: 10), sink: sink)
        sink.encoder?.setNetworkCongested(true)
        let stats = try await pipeline.run()
        #expect(stats.framesDropped["congestion"] == 10)
        #expect(stats.framesEncoded == 0)
    }
}
