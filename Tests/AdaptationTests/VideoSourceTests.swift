import Capture
import FrameProcessing
import MediaCore
import Synchronization
import TestSupport
import Testing
@testable import Adaptation

/// Stands in for a capturer when a test calls the delegate methods itself.
final class FakeCapturer: VideoCapturer {
    private let slot = Mutex<(any VideoCapturerDelegate)?>(nil)

    var delegate: (any VideoCapturerDelegate)? {
        get { slot.withLock { $0 } }
        set { slot.withLock { $0 = newValue } }
    }

    func stopCapture() {}
}

/// Records everything a source sends it.
final class RecordingSink: VideoSink {
    enum Event {
        case frame(VideoFrame)
        case dropped(timestampNs: Int64, reason: FrameDropReason)
        case failed(String)
        case finished
    }

    private let recorded = Mutex<[Event]>([])

    var events: [Event] { recorded.withLock { $0 } }

    var frames: [VideoFrame] {
        events.compactMap { if case .frame(let frame) = $0 { frame } else { nil } }
    }

    var drops: [(timestampNs: Int64, reason: FrameDropReason)] {
        events.compactMap { if case .dropped(let timestampNs, let reason) = $0 { (timestampNs, reason) } else { nil } }
    }

    func clear() { recorded.withLock { $0.removeAll() } }

    func onFrame(_ frame: VideoFrame) { recorded.withLock { $0.append(.frame(frame)) } }

    func onDroppedFrame(timestampNs: Int64, reason: FrameDropReason) {
        recorded.withLock { $0.append(.dropped(timestampNs: timestampNs, reason: reason)) }
    }

    func didFail(_ error: any Error) { recorded.withLock { $0.append(.failed("\(error)")) } }

    func capturerDidFinish() { recorded.withLock { $0.append(.finished) } }
}

/// Paints a rectangle of one colour; chroma follows at half resolution.
func paint(_ buffer: I420Buffer, x: Int, y: Int, width: Int, height: Int, color: (y: UInt8, u: UInt8, v: UInt8)) {
    for row in y..<(y + height) {
        (buffer.dataY + row * buffer.strideY + x).update(repeating: color.y, count: width)
    }
    for row in (y / 2)..<((y + height) / 2) {
        (buffer.dataU + row * buffer.strideU + x / 2).update(repeating: color.u, count: width / 2)
        (buffer.dataV + row * buffer.strideV + x / 2).update(repeating: color.v, count: width / 2)
    }
}

func luma(_ buffer: I420Buffer, _ x: Int, _ y: Int) -> UInt8 {
    buffer.dataY[y * buffer.strideY + x]
}

func patternFrame(width: Int, height: Int, index: Int = 0, rotation: VideoRotation = .deg0, timestampNs: Int64 = 1_000_000_000) -> VideoFrame {
    let buffer = I420Buffer(width: width, height: height)
    TestPatternRenderer(width: width, height: height).render(index: index, into: buffer)
    return VideoFrame(buffer: buffer, rotation: rotation, timestampNs: timestampNs)
}

/// A 64×32 grey picture with a bright 16×8 block in its top-left corner.
func markedFrame(rotation: VideoRotation) -> VideoFrame {
    let buffer = I420Buffer(width: 64, height: 32)
    buffer.fill(y: 50, u: 128, v: 128)
    paint(buffer, x: 0, y: 0, width: 16, height: 8, color: (200, 90, 160))
    return VideoFrame(buffer: buffer, rotation: rotation, timestampNs: 1_000_000_000)
}

func rotated(_ buffer: I420Buffer, by rotation: VideoRotation) throws -> I420Buffer {
    let output = rotation.swapsDimensions
        ? I420Buffer(width: buffer.height, height: buffer.width)
        : I420Buffer(width: buffer.width, height: buffer.height)
    try I420Transform.rotate(buffer, by: rotation, into: output)
    return output
}

func mirrored(_ buffer: I420Buffer) throws -> I420Buffer {
    let output = I420Buffer(width: buffer.width, height: buffer.height)
    try I420Transform.mirror(buffer, into: output)
    return output
}

func isIdentical(_ a: I420Buffer, _ b: I420Buffer) -> Bool {
    a.width == b.width && a.height == b.height && a.bytes.elementsEqual(b.bytes)
}

@Suite struct VideoSourceTests {
    let capturer = FakeCapturer()

    @Test func passesAnUnadaptedFrameThroughWithoutCopying() throws {
        let source = VideoSource()
        let sink = RecordingSink()
        _ = source.addSink(sink)
        let input = patternFrame(width: 1280, height: 720, rotation: .deg270, timestampNs: 42)
        source.capturer(capturer, didCapture: input)
        let output = try #require(sink.frames.first)
        #expect(output.buffer === input.buffer)
        #expect(output.rotation == .deg270)
        #expect(output.timestampNs == 42)
        // A request for the input's own size changes nothing either.
        source.adaptOutputFormat(width: 1280, height: 720, fps: nil)
        source.capturer(capturer, didCapture: input)
        #expect(sink.frames.last?.buffer === input.buffer)
    }

    @Test func scalesToTheRequestedSize() throws {
        let source = VideoSource()
        let sink = RecordingSink()
        _ = source.addSink(sink)
        source.adaptOutputFormat(width: 640, height: 360, fps: nil)
        let input = patternFrame(width: 1280, height: 720, index: 1234)
        source.capturer(capturer, didCapture: input)
        let output = try #require(sink.frames.first)
        #expect(output.width == 640 && output.height == 360)
        let reference = I420Buffer(width: 640, height: 360)
        try I420Transform.scale(input.buffer, into: reference)
        #expect(try #require(I420Transform.psnr(output.buffer, reference)) > 60)
        #expect(TestPatternRenderer.readIndex(from: output.buffer) == 1234)
    }

    @Test func cropsTheMiddleToTheRequestedAspect() throws {
        // 4:3 with red bands over the 60 rows at the top and bottom that 16:9 cuts away, and
        // a left and a right half that must stay left and right.
        let input = I420Buffer(width: 640, height: 480)
        paint(input, x: 0, y: 0, width: 640, height: 480, color: (81, 90, 240))
        paint(input, x: 0, y: 60, width: 320, height: 360, color: (60, 128, 128))
        paint(input, x: 320, y: 60, width: 320, height: 360, color: (180, 128, 128))
        let source = VideoSource()
        let sink = RecordingSink()
        _ = source.addSink(sink)
        source.adaptOutputFormat(width: 320, height: 180, fps: nil)
        source.capturer(capturer, didCapture: VideoFrame(buffer: input, timestampNs: 0))
        let output = try #require(sink.frames.first)
        #expect(output.width == 320 && output.height == 180)
        for y in [0, 90, 179] {
            #expect(luma(output.buffer, 10, y) == 60, "row \(y)")
            #expect(luma(output.buffer, 310, y) == 180, "row \(y)")
        }
        // No red left: every V sample is neutral.
        let chromaCount = output.buffer.chromaWidth * output.buffer.chromaHeight
        #expect(UnsafeBufferPointer(start: output.buffer.dataV, count: chromaCount).allSatisfy { $0 == 128 })
    }

    @Test func followsFormatChangesWhileRunning() {
        let source = VideoSource()
        let sink = RecordingSink()
        _ = source.addSink(sink)
        let input = patternFrame(width: 1280, height: 720)
        source.adaptOutputFormat(width: 640, height: 360, fps: nil)
        source.capturer(capturer, didCapture: input)
        source.adaptOutputFormat(width: 320, height: 180, fps: nil)
        source.capturer(capturer, didCapture: input)
        source.adaptOutputFormat(resolution: .scaleSteps(width: 800, height: 450), fps: nil)
        source.capturer(capturer, didCapture: input)
        source.adaptOutputFormat(resolution: nil, fps: nil)
        source.capturer(capturer, didCapture: input)
        #expect(sink.frames.map { [$0.width, $0.height] } == [[640, 360], [320, 180], [640, 360], [1280, 720]])
    }

    @Test(arguments: [VideoRotation.deg90, .deg180, .deg270])
    func appliesRotationToThePixels(rotation: VideoRotation) throws {
        let source = VideoSource(options: VideoSourceOptions(applyRotation: true))
        let sink = RecordingSink()
        _ = source.addSink(sink)
        let input = markedFrame(rotation: rotation)
        source.capturer(capturer, didCapture: input)
        let output = try #require(sink.frames.first)
        #expect(output.rotation == .deg0)
        #expect(isIdentical(output.buffer, try rotated(input.buffer, by: rotation)))
        // Where the top-left block lands when turned clockwise.
        let block: (x: Int, y: Int) = switch rotation {
        case .deg90: (28, 4)
        case .deg180: (56, 28)
        case .deg270: (4, 60)
        case .deg0: (4, 4)
        }
        #expect(luma(output.buffer, block.x, block.y) == 200)
        #expect(luma(output.buffer, 4, 4) == (rotation == .deg0 ? 200 : 50))
        if rotation.swapsDimensions {
            #expect(output.width == 32 && output.height == 64)
        }
    }

    @Test func scalesBeforeRotating() throws {
        let source = VideoSource(options: VideoSourceOptions(applyRotation: true))
        let sink = RecordingSink()
        _ = source.addSink(sink)
        source.adaptOutputFormat(width: 640, height: 360, fps: nil)
        source.capturer(capturer, didCapture: patternFrame(width: 1280, height: 720, rotation: .deg90))
        let output = try #require(sink.frames.first)
        #expect(output.width == 360 && output.height == 640 && output.rotation == .deg0)
    }

    @Test func keepsRotationAsMetadataUnlessAsked() throws {
        let source = VideoSource()
        let sink = RecordingSink()
        _ = source.addSink(sink)
        source.adaptOutputFormat(width: 32, height: 16, fps: nil)
        source.capturer(capturer, didCapture: markedFrame(rotation: .deg90))
        let output = try #require(sink.frames.first)
        #expect(output.rotation == .deg90)
        #expect(output.width == 32 && output.height == 16)
        #expect(luma(output.buffer, 2, 2) == 200)
    }

    /// Mirroring flips the upright picture, whether the rotation is applied or left to the
    /// receiver: both must show the same thing.
    @Test(arguments: VideoRotation.allCases)
    func mirrorsThePictureAsTheViewerSeesIt(rotation: VideoRotation) throws {
        let input = markedFrame(rotation: rotation)
        let upright = try rotated(input.buffer, by: rotation)
        let expected = try mirrored(upright)

        let applying = VideoSource(options: VideoSourceOptions(applyRotation: true, mirror: true))
        let applied = RecordingSink()
        _ = applying.addSink(applied)
        applying.capturer(capturer, didCapture: input)
        let appliedFrame = try #require(applied.frames.first)
        #expect(appliedFrame.rotation == .deg0)
        #expect(isIdentical(appliedFrame.buffer, expected))

        let signalling = VideoSource(options: VideoSourceOptions(mirror: true))
        let signalled = RecordingSink()
        _ = signalling.addSink(signalled)
        signalling.capturer(capturer, didCapture: input)
        let signalledFrame = try #require(signalled.frames.first)
        #expect(isIdentical(try rotated(signalledFrame.buffer, by: signalledFrame.rotation), expected))
    }

    @Test func optionsChangeWhileRunning() throws {
        let source = VideoSource()
        let sink = RecordingSink()
        _ = source.addSink(sink)
        let input = markedFrame(rotation: .deg90)
        source.capturer(capturer, didCapture: input)
        source.applyRotation = true
        source.capturer(capturer, didCapture: input)
        source.applyRotation = false
        source.mirror = true
        source.capturer(capturer, didCapture: input)
        #expect(source.mirror && !source.applyRotation)
        let frames = sink.frames
        #expect(frames.map(\.rotation) == [.deg90, .deg0, .deg270])
        #expect(frames.map { [$0.width, $0.height] } == [[64, 32], [32, 64], [64, 32]])
    }

    @Test func reportsFramesTheFpsCapDrops() {
        let source = VideoSource()
        let sink = RecordingSink()
        _ = source.addSink(sink)
        source.adaptOutputFormat(resolution: nil, fps: 15)
        let timestamps = cameraTimestamps(fps: 30, count: 60, jitterNs: 3_000_000, seed: 21)
        let buffer = I420Buffer(width: 64, height: 32)
        for timestampNs in timestamps {
            source.capturer(capturer, didCapture: VideoFrame(buffer: buffer, timestampNs: timestampNs))
        }
        #expect(sink.frames.map(\.timestampNs) == stride(from: 0, to: 60, by: 2).map { timestamps[$0] })
        #expect(sink.drops.map(\.timestampNs) == stride(from: 1, to: 60, by: 2).map { timestamps[$0] })
        #expect(sink.drops.allSatisfy { $0.reason == .fpsCap })
    }

    @Test func forwardsWhatTheCapturerReports() {
        struct Unplugged: Error {}
        let source = VideoSource()
        let sink = RecordingSink()
        _ = source.addSink(sink)
        source.capturer(capturer, didDropFrame: 77, reason: .errorBuffer)
        source.capturer(capturer, didFail: Unplugged())
        source.capturerDidFinish(capturer)
        let events = sink.events
        guard events.count == 3, case .dropped(77, .errorBuffer) = events[0], case .failed = events[1],
              case .finished = events[2] else {
            Issue.record("unexpected events \(events)")
            return
        }
    }

    @Test func dropsAFrameWhenEveryPooledBufferIsHeld() {
        let source = VideoSource(options: VideoSourceOptions(bufferPoolCapacity: 1))
        let sink = RecordingSink()
        _ = source.addSink(sink)
        source.adaptOutputFormat(width: 32, height: 16, fps: nil)
        let input = markedFrame(rotation: .deg0)
        source.capturer(capturer, didCapture: input)
        source.capturer(capturer, didCapture: input)
        #expect(sink.frames.count == 1)
        #expect(sink.drops.map(\.reason) == [.poolExhausted])
        // Once the sink lets go, the buffer comes back.
        sink.clear()
        source.capturer(capturer, didCapture: input)
        #expect(sink.frames.count == 1)
    }

    @Test func reusesOutputBuffersOnceSinksReleaseThem() {
        final class IdentitySink: VideoSink {
            let identities = Mutex<Set<ObjectIdentifier>>([])
            func onFrame(_ frame: VideoFrame) { identities.withLock { _ = $0.insert(ObjectIdentifier(frame.buffer)) } }
        }
        let source = VideoSource(options: VideoSourceOptions(applyRotation: true, mirror: true))
        let sink = IdentitySink()
        _ = source.addSink(sink)
        source.adaptOutputFormat(width: 320, height: 180, fps: nil)
        let input = patternFrame(width: 640, height: 360, rotation: .deg90)
        for _ in 0..<20 {
            source.capturer(capturer, didCapture: input)
        }
        #expect(sink.identities.withLock { $0.count } == 1)
    }

    @Test func alignsTimestampsWhenAsked() throws {
        let clockNs = Mutex<Int64>(0)
        let source = VideoSource(options: VideoSourceOptions(alignTimestamps: true), systemClockNs: { clockNs.withLock { $0 } })
        let sink = RecordingSink()
        _ = source.addSink(sink)
        let buffer = I420Buffer(width: 64, height: 32)
        // The camera's clock is 40 s behind; frames arrive 5 ms after capture.
        for index in 0..<10 {
            let captureNs = Int64(index) * 33_333_333
            clockNs.withLock { $0 = captureNs + 40_000_000_000 + 5_000_000 }
            source.capturer(capturer, didCapture: VideoFrame(buffer: buffer, timestampNs: captureNs))
        }
        let timestamps = sink.frames.map(\.timestampNs)
        #expect(timestamps == (0..<10).map { Int64($0) * 33_333_333 + 40_005_000_000 })
    }

    @Test func removingASinkStopsItsCalls() {
        let source = VideoSource()
        let first = RecordingSink()
        let second = RecordingSink()
        let firstToken = source.addSink(first)
        _ = source.addSink(second)
        let input = markedFrame(rotation: .deg0)
        source.capturer(capturer, didCapture: input)
        source.removeSink(firstToken)
        source.removeSink(firstToken)
        source.capturer(capturer, didCapture: input)
        source.capturer(capturer, didDropFrame: 1, reason: .errorBuffer)
        #expect(first.events.count == 1)
        #expect(second.events.count == 3)
    }

    @Test func aSinkCanRemoveItselfDuringACall() {
        final class OneShotSink: VideoSink {
            let source: VideoSource
            let token = Mutex<SinkToken?>(nil)
            let calls = Atomic<Int>(0)
            init(source: VideoSource) { self.source = source }
            func onFrame(_ frame: VideoFrame) {
                calls.add(1, ordering: .relaxed)
                if let token = token.withLock({ $0 }) { source.removeSink(token) }
            }
        }
        let source = VideoSource()
        let sink = OneShotSink(source: source)
        let token = source.addSink(sink)
        sink.token.withLock { $0 = token }
        let input = markedFrame(rotation: .deg0)
        source.capturer(capturer, didCapture: input)
        source.capturer(capturer, didCapture: input)
        let calls = sink.calls.load(ordering: .relaxed)
        #expect(calls == 1)
    }

    @Test func removeSinkWaitsForACallInProgress() {
        final class SlowSink: VideoSink {
            let inCall = Atomic<Bool>(false)
            let calls = Atomic<Int>(0)
            func onFrame(_ frame: VideoFrame) {
                inCall.store(true, ordering: .sequentiallyConsistent)
                MonotonicClock.sleep(untilNs: MonotonicClock.nowNs() + 100_000_000)
                calls.add(1, ordering: .sequentiallyConsistent)
                inCall.store(false, ordering: .sequentiallyConsistent)
            }
        }
        let source = VideoSource()
        let sink = SlowSink()
        let token = source.addSink(sink)
        let capturer = self.capturer
        let input = markedFrame(rotation: .deg0)
        let captureThread = MediaThread(name: "test.capture") {
            source.capturer(capturer, didCapture: input)
        }
        let giveUpNs = TestPatience.deadlineNs
        while !sink.inCall.load(ordering: .sequentiallyConsistent), MonotonicClock.nowNs() < giveUpNs {
            MonotonicClock.sleep(untilNs: MonotonicClock.nowNs() + 1_000_000)
        }
        source.removeSink(token)
        let stillInCall = sink.inCall.load(ordering: .sequentiallyConsistent)
        let callsAtRemoval = sink.calls.load(ordering: .sequentiallyConsistent)
        #expect(!stillInCall)
        #expect(callsAtRemoval == 1)
        captureThread.join()
        source.capturer(capturer, didCapture: input)
        let callsAfter = sink.calls.load(ordering: .sequentiallyConsistent)
        #expect(callsAfter == 1)
    }

    @Test func adaptsARealCapturersFrames() throws {
        let camera = TestPatternSource(width: 1280, height: 720, fps: 30, pace: .fast, rotation: .deg90)
        let source = VideoSource(options: VideoSourceOptions(applyRotation: true))
        source.adaptOutputFormat(width: 640, height: 360, fps: nil)
        final class CollectingSink: VideoSink {
            let indices = Mutex<[Int]>([])
            func onFrame(_ frame: VideoFrame) {
                // Turn it back to read the bar code along the original bottom edge.
                let upright = try? rotated(frame.buffer, by: .deg270)
                indices.withLock { $0.append(upright.flatMap(TestPatternRenderer.readIndex(from:)) ?? -1) }
            }
        }
        let sink = CollectingSink()
        _ = source.addSink(sink)
        camera.delegate = source
        camera.startCapture()
        let giveUpNs = TestPatience.deadlineNs
        while sink.indices.withLock({ $0.count }) < 30, MonotonicClock.nowNs() < giveUpNs {
            MonotonicClock.sleep(untilNs: MonotonicClock.nowNs() + 2_000_000)
        }
        camera.stopCapture()
        let indices = sink.indices.withLock { $0 }
        #expect(indices.count >= 30)
        #expect(indices == Array(0..<indices.count))
    }
}
