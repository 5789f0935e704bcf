import MediaCore

/// A camera-free source: a moving diagonal ramp with the frame index drawn twice, as digits for
/// people and as a 16-bit bar code along the bottom edge for tests, so a dropped frame is visible
/// to both. Frame `n` of a given size is always the same picture.
public final class TestPatternSource: VideoCapturer {
    public let width: Int
    public let height: Int
    public let fps: Double
    private let pace: CapturePace
    private let rotation: VideoRotation
    private let loop = PacedCaptureLoop()
    private let delegateSlot = WeakDelegate()

    public var delegate: (any VideoCapturerDelegate)? {
        get { delegateSlot.value }
        set { delegateSlot.value = newValue }
    }

    /// - Parameters:
    ///   - rotation: the rotation metadata every frame carries.
    public init(width: Int = 1280, height: Int = 720, fps: Double = 30, pace: CapturePace = .realtime, rotation: VideoRotation = .deg0) {
        self.width = width
        self.height = height
        self.fps = fps
        self.pace = pace
        self.rotation = rotation
    }

    /// Starts delivering frames from index 0.
    public func startCapture() {
        loop.start(
            name: "camrtp.testsrc", capturer: self, delegate: delegateSlot,
            producer: TestPatternProducer(width: width, height: height),
            frameIntervalNs: Int64(1e9 / fps), pace: pace, rotation: rotation)
    }

    public func stopCapture() {
        loop.stop()
    }
}

/// Draws test-pattern frames with bulk row copies and fills, never per-pixel loops over the frame.
final class TestPatternProducer: FrameProducer, @unchecked Sendable {
    let width: Int
    let height: Int
    private var index = 0
    private let renderer: TestPatternRenderer

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        renderer = TestPatternRenderer(width: width, height: height)
    }

    func produceFrame(into buffer: I420Buffer) throws -> Bool {
        renderer.render(index: index, into: buffer)
        index += 1
        return true
    }
}
