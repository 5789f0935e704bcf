@testable import Adaptation
import Capture
import FrameProcessing
import ImageEncoding
import MediaCore
import Synchronization
import TestSupport
import Testing

/// Keeps a copy of every frame it gets, so that holding them never starves the source's pools.
final class CopyingSink: VideoSink {
    private let copies = Mutex<[VideoFrame]>([])

    var frames: [VideoFrame] { copies.withLock { $0 } }

    func onFrame(_ frame: VideoFrame) {
        let copy = I420Buffer(width: frame.width, height: frame.height)
        copy.bytes.copyMemory(from: UnsafeRawBufferPointer(frame.buffer.bytes))
        copies.withLock { $0.append(VideoFrame(buffer: copy, rotation: frame.rotation, timestampNs: frame.timestampNs)) }
    }
}

final class CallCounter: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .relaxed) }
    func increment() { count.add(1, ordering: .relaxed) }
}

@Suite struct NextFrameRequestTests {
    @Test func itTakesACopyOfTheFrameAfterTheSkippedOnesAndUnsubscribesOnce() async throws {
        let request = NextFrameRequest(skipping: 2)
        let unsubscribed = CallCounter()
        request.subscribed { unsubscribed.increment() }
        let frames = (0..<4).map { patternFrame(width: 64, height: 48, index: $0, rotation: .deg90, timestampNs: Int64($0) * 1000) }
        for frame in frames { request.onFrame(frame) }
        let reference = patternFrame(width: 64, height: 48, index: 2).buffer
        // The pool hands the picture to the next frame: the copy must not change with it.
        frames[2].buffer.fill(y: 0, u: 0, v: 0)
        let frame = try await request.outcome().get()
        #expect(frame.timestampNs == 2000 && frame.rotation == .deg90)
        #expect(frame.buffer !== frames[2].buffer)
        #expect(isIdentical(frame.buffer, reference))
        #expect(unsubscribed.value == 1)
    }

    @Test func theFirstEndWinsAndARequestThatEndedBeforeSubscribingUnsubscribesAtOnce() async {
        let request = NextFrameRequest()
        request.cancel(with: .pipelineStopped)
        request.onFrame(patternFrame(width: 64, height: 48))
        request.capturerDidFinish()
        let unsubscribed = CallCounter()
        request.subscribed { unsubscribed.increment() }
        #expect(unsubscribed.value == 1)
        guard case .failure(.pipelineStopped) = await request.outcome() else {
            Issue.record("expected pipelineStopped")
            return
        }
    }

    @Test func aFailingOrFinishedCapturerEndsTheWait() async {
        struct Unplugged: Error {}
        let failing = NextFrameRequest()
        failing.didFail(Unplugged())
        guard case .failure(.sourceFailed(let error)) = await failing.outcome(), error is Unplugged else {
            Issue.record("expected sourceFailed(Unplugged)")
            return
        }
        let finished = NextFrameRequest()
        finished.capturerDidFinish()
        guard case .failure(.sourceFinished) = await finished.outcome() else {
            Issue.record("expected sourceFinished")
            return
        }
    }
}

@Suite struct VideoSourceSnapshotTests {
    /// The snapshot shows the frame the sinks got, upright and mirrored as a viewer of the stream
    /// sees it, whether the source applies the rotation or leaves it as metadata (CVO). PNG is
    /// lossless, so the picture must match the reference exactly.
    @Test(arguments: [
        (VideoRotation.deg0, false, false), (.deg90, false, false), (.deg90, true, false), (.deg270, true, false),
        (.deg180, false, true), (.deg90, true, true),
    ])
    func theSnapshotIsTheSinksFrameUpright(rotation: VideoRotation, mirror: Bool, applyRotation: Bool) async throws {
        let width = 96, height = 64
        let capturer = TestPatternSource(width: width, height: height, fps: 60, pace: .realtime, rotation: rotation)
        let source = VideoSource(options: VideoSourceOptions(applyRotation: applyRotation, mirror: mirror))
        let recorder = CopyingSink()
        _ = source.addSink(recorder)
        capturer.delegate = source
        capturer.startCapture()
        let snapshot = try await source.snapshot(format: .png, skipping: 2)
        capturer.stopCapture()

        let index = try #require(recorder.frames.firstIndex { $0.timestampNs == snapshot.timestampNs })
        #expect(index >= 2, "two frames let pass after subscribing")
        // Independent of the adapter: the source's picture n, turned upright, then flipped.
        let original = patternFrame(width: width, height: height, index: index).buffer
        let upright = try rotated(original, by: rotation)
        let expected = try RGBPicture(converting: mirror ? mirrored(upright) : upright)
        let decoded = try ImageDecoding.png(snapshot.image.data)
        #expect(decoded.width == expected.width && decoded.height == expected.height)
        #expect(zip(decoded.bytes, expected.bytes).filter { $0 != $1 }.count == 0, "bytes that differ")
    }

    @Test func cancellingTheTaskEndsTheWait() async {
        let source = VideoSource()
        let task = Task { try await source.snapshot(format: .jpeg) }
        task.cancel()
        let result = await task.result
        guard case .failure(let error) = result, case .cancelled? = error as? SnapshotError else {
            Issue.record("expected cancelled, got \(result)")
            return
        }
    }

    @Test func impossibleRequestsFailBeforeWaiting() async {
        let source = VideoSource()
        await #expect {
            try await source.snapshot(format: .jpeg, quality: 0)
        } throws: { error in
            if case SnapshotError.encodingFailed(.invalidQuality(0)) = error { true } else { false }
        }
        await #expect {
            try await source.snapshot(format: .png, skipping: -1)
        } throws: { error in
            if case SnapshotError.invalidSkipCount(-1) = error { true } else { false }
        }
    }
}
