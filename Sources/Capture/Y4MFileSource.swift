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
        do {
            reader = try Y4MReader(path: path, loop: loop)
        } catch {
            throw Y4MError(path: path, problem: error)
        }
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

/// Reads Y4M frames straight into pooled buffers: the planes of an `I420Buffer` are laid out
/// exactly as a Y4M 4:2:0 frame, so each frame is one bulk read.
final class Y4MReader: FrameProducer, @unchecked Sendable {
    let header: Y4MHeader
    var width: Int { header.width }
    var height: Int { header.height }
    private let path: String
    private let fd: Int32
    private let loops: Bool
    private let firstFrameOffset: off_t
    private var frameIndex = 0

    init(path: String, loop: Bool) throws(Y4MProblem) {
        self.path = path
        loops = loop
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotOpen(String(cString: strerror(errno))) }
        do throws(Y4MProblem) {
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while line.count < 4096, read(fd, &byte, 1) == 1, byte != 0x0A { line.append(byte) }
            guard byte == 0x0A else { throw .badHeader("no header line ending in a newline") }
            header = try Y4MHeader(parsing: Substring(decoding: line, as: UTF8.self))
            firstFrameOffset = lseek(fd, 0, SEEK_CUR)
            // One frame must be readable in full before anything streams.
            let probe = I420Buffer(width: header.width, height: header.height)
            guard try readFrame(into: probe) else { throw .noFrames }
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
        do throws(Y4MProblem) {
            if try readFrame(into: buffer) { return true }
            guard loops else { return false }
            rewind()
            return try readFrame(into: buffer)
        } catch {
            throw Y4MError(path: path, problem: error)
        }
    }

    private func rewind() {
        lseek(fd, firstFrameOffset, SEEK_SET)
        frameIndex = 0
    }

    /// Reads the next frame; false at a clean end of file.
    private func readFrame(into buffer: I420Buffer) throws(Y4MProblem) -> Bool {
        var tag = [UInt8](repeating: 0, count: 6)
        let tagCount = readFully(into: &tag, count: 6)
        if tagCount == 0 { return false }
        guard tagCount == 6, tag[0..<5].elementsEqual("FRAME".utf8), tag[5] == 0x0A || tag[5] == 0x20 else {
            throw .badFrameHeader(frame: frameIndex)
        }
        if tag[5] == 0x20 {
            var byte: UInt8 = 0
            var skipped = 0
            repeat {
                guard read(fd, &byte, 1) == 1, skipped < 1024 else {
                    throw .badFrameHeader(frame: frameIndex)
                }
                skipped += 1
            } while byte != 0x0A
        }
        let expected = header.frameByteCount
        let got = readFully(into: buffer.bytes.baseAddress!, count: expected)
        guard got == expected else {
            throw .truncated(frame: frameIndex, got: got, expected: expected)
        }
        if header.colorSpace == .mono {
            let lumaCount = header.width * header.height
            UnsafeMutableRawBufferPointer(rebasing: buffer.bytes[lumaCount...]).initializeMemory(as: UInt8.self, repeating: 128)
        }
        frameIndex += 1
        return true
    }

    /// Reads until `count` bytes or end of file, retrying interrupted reads; returns bytes read.
    private func readFully(into destination: UnsafeMutableRawPointer, count: Int) -> Int {
        var total = 0
        while total < count {
            let result = read(fd, destination + total, count - total)
            if result > 0 {
                total += result
            } else if result < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        return total
    }
}
