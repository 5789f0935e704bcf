import MediaCore

#if canImport(Glibc)
import Glibc
#endif

/// A camera-free source that plays a YUV4MPEG2 file at its frame rate (or as fast as the
/// consumer takes it), looping when asked. The header and first frame are checked when the
/// source is made, so a bad file fails before anything streams.
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

    /// Opens and checks `path`. Throws `Y4MError` naming the file and the problem.
    public init(path: String, loop: Bool = false, pace: CapturePace = .realtime, rotation: VideoRotation = .deg0) throws(Y4MError) {
        self.path = path
        self.pace = pace
        self.rotation = rotation
        reader = try Y4MReader(path: path, loop: loop)
        header = reader.header
    }

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

/// Plays a Y4M file for `PacedCaptureLoop`, rewinding to the first frame when it loops.
final class Y4MReader: FrameProducer, @unchecked Sendable {
    let header: Y4MHeader
    var width: Int { header.width }
    var height: Int { header.height }
    private let fd: Int32
    private let stream: Y4MStreamReader
    private let loops: Bool
    private let firstFrameOffset: off_t

    init(path: String, loop: Bool) throws(Y4MError) {
        loops = loop
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Y4MError(path: path, problem: .cannotOpen(String(cString: strerror(errno)))) }
        do throws(Y4MError) {
            stream = try Y4MStreamReader(fileDescriptor: fd, name: path)
            header = stream.header
            firstFrameOffset = lseek(fd, 0, SEEK_CUR)
            // One frame must be readable in full before anything streams.
            guard try stream.readFrame(into: I420Buffer(width: header.width, height: header.height)) else {
                throw Y4MError(path: path, problem: .noFrames)
            }
            rewind()
        } catch {
            close(fd)
            throw error
        }
    }

    deinit {
        close(fd)
    }

    func produceFrame(into buffer: I420Buffer) throws -> Bool {
        if try stream.readFrame(into: buffer) { return true }
        guard loops else { return false }
        rewind()
        return try stream.readFrame(into: buffer)
    }

    private func rewind() {
        lseek(fd, firstFrameOffset, SEEK_SET)
        stream.restartNumbering()
    }
}
