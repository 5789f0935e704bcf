import MediaCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A camera-free source that plays a YUV4MPEG2 file or pipe at its frame rate (or as fast as
/// the consumer takes it), looping a file when asked.
///
/// A damaged file (a frame cut short, a broken `FRAME` line) ends the stream where the damage
/// starts: every good frame before it is delivered, then the source finishes as at a clean end
/// (`capturerDidFinish`), so that a pipeline encodes all of them, and `damage` says what ended
/// it for the caller to report.
public final class Y4MFileSource: VideoCapturer {
    public let path: String
    public let header: Y4MHeader
    private let reader: Y4MReader
    private let pace: CapturePace
    private let rotation: VideoRotation
    private let loop = PacedCaptureLoop()
    private let delegateSlot = WeakDelegate()

    public var delegate: (any VideoCapturerDelegate)? {
        get { delegateSlot.value }
        set { delegateSlot.value = newValue }
    }

    /// Opens and checks `path` ("-" for standard input). Throws `Y4MError` naming the file and
    /// the problem.
    public convenience init(path: String, loop: Bool = false, pace: CapturePace = .realtime, rotation: VideoRotation = .deg0) throws(Y4MError) {
        try self.init(input: Y4MInput(path: path), loop: loop, pace: pace, rotation: rotation)
    }

    /// Plays an input that is already open. A pipe cannot `loop`.
    public init(input: Y4MInput, loop: Bool = false, pace: CapturePace = .realtime, rotation: VideoRotation = .deg0) throws(Y4MError) {
        guard !loop || input.isSeekable else { throw Y4MError(path: input.name, problem: .cannotLoop) }
        path = input.name
        header = input.header
        self.pace = pace
        self.rotation = rotation
        reader = Y4MReader(input: input, loops: loop)
    }

    /// What ended the stream before the end of the file, once capture has finished; nil for a
    /// clean end.
    public var damage: Y4MError? { reader.damage.withLock { $0 } }

    /// Starts delivering frames from the first one.
    public func startCapture() {
        loop.start(
            name: "camrtp.y4m", capturer: self, delegate: delegateSlot, producer: reader,
            frameIntervalNs: Int64(1e9 / header.frameRate), pace: pace, rotation: rotation)
    }

    public func stopCapture() {
        loop.stop()
    }
}

/// An open YUV4MPEG2 stream, a file or a pipe such as standard input, with its header read and
/// its first frame checked: a bad file fails before anything streams, and a pipe is read once,
/// frame for frame (the checked frame is kept and delivered first).
public final class Y4MInput: @unchecked Sendable {
    /// The path, or "standard input".
    public let name: String
    public let header: Y4MHeader
    /// False for a pipe, which cannot go back to its first frame.
    public let isSeekable: Bool
    private let fd: Int32
    private let ownsDescriptor: Bool
    private let stream: Y4MStreamReader
    private let firstFrameOffset: off_t
    private var firstFrame: I420Buffer?

    /// Opens `path`; "-" reads standard input.
    public init(path: String) throws(Y4MError) {
        if path == "-" {
            name = "standard input"
            fd = STDIN_FILENO
            ownsDescriptor = false
        } else {
            name = path
            fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw Y4MError(path: path, problem: .cannotOpen(String(cString: strerror(errno)))) }
            ownsDescriptor = true
        }
        do throws(Y4MError) {
            stream = try Y4MStreamReader(fileDescriptor: fd, name: name)
            header = stream.header
            firstFrameOffset = lseek(fd, 0, SEEK_CUR)
            isSeekable = firstFrameOffset >= 0
            let first = I420Buffer(width: header.width, height: header.height)
            guard try stream.readFrame(into: first) else { throw Y4MError(path: name, problem: .noFrames) }
            firstFrame = first
        } catch {
            if ownsDescriptor { close(fd) }
            throw error
        }
    }

    deinit {
        if ownsDescriptor { close(fd) }
    }

    /// Reads the next frame into `buffer`; false at a clean end.
    func readFrame(into buffer: I420Buffer) throws(Y4MError) -> Bool {
        if let first = firstFrame {
            firstFrame = nil
            buffer.bytes.copyMemory(from: UnsafeRawBufferPointer(first.bytes))
            return true
        }
        return try stream.readFrame(into: buffer)
    }

    /// Goes back to the first frame; a seekable input only.
    func rewind() {
        lseek(fd, firstFrameOffset, SEEK_SET)
        stream.restartNumbering()
    }
}

/// Plays a `Y4MInput` for `PacedCaptureLoop`, rewinding to the first frame when it loops and
/// ending at damage, which it keeps.
final class Y4MReader: FrameProducer, @unchecked Sendable {
    let input: Y4MInput
    var width: Int { input.header.width }
    var height: Int { input.header.height }
    private let loops: Bool
    let damage = Mutex<Y4MError?>(nil)

    init(input: Y4MInput, loops: Bool) {
        self.input = input
        self.loops = loops
    }

    func produceFrame(into buffer: I420Buffer) throws -> Bool {
        do throws(Y4MError) {
            if try input.readFrame(into: buffer) { return true }
            guard loops else { return false }
            input.rewind()
            return try input.readFrame(into: buffer)
        } catch {
            damage.withLock { $0 = error }
            return false
        }
    }
}
