import Capture
import Foundation
import MediaCore

/// A Y4M file that a receiver is still writing, read frame by frame as it grows: a test waits
/// for the frame it needs (the first one, or one past the end of the clip), not for the clock.
public final class GrowingY4MFile {
    public let path: String
    public private(set) var header: Y4MHeader?
    /// Frames read so far.
    public private(set) var framesRead = 0
    private var fd: Int32 = -1
    private var offset: off_t = 0

    public init(path: String) {
        self.path = path
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// The next whole frame; nil when the file has not grown for `idleTimeoutSeconds` (a bound
    /// for a receiver that hangs or stopped decoding) or holds something that is not 4:2:0 Y4M.
    public func nextFrame(idleTimeoutSeconds: Double = TestPatience.seconds) -> I420Buffer? {
        var idleSince = Date()
        var lastSize: off_t = -1
        while true {
            let size = currentSize()
            if let frame = readFrame(size: size) { return frame }
            if size != lastSize {
                lastSize = size
                idleSince = Date()
            } else if Date().timeIntervalSince(idleSince) > idleTimeoutSeconds || isBroken {
                return nil
            }
            usleep(10_000)
        }
    }

    /// Reads frames until `predicate` holds for one (given with its 0-based position in the
    /// file) and returns that frame; nil as `nextFrame` does.
    public func waitForFrame(idleTimeoutSeconds: Double = TestPatience.seconds, where predicate: (I420Buffer, Int) -> Bool) -> I420Buffer? {
        while let frame = nextFrame(idleTimeoutSeconds: idleTimeoutSeconds) {
            if predicate(frame, framesRead - 1) { return frame }
        }
        return nil
    }

    private var isBroken = false

    private func currentSize() -> off_t {
        if fd < 0 { fd = open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { return 0 }
        var status = stat()
        return fstat(fd, &status) == 0 ? status.st_size : 0
    }

    /// A line ending in a newline at `offset`, if the file holds it whole (at most 256 bytes).
    private func line(at start: off_t, size: off_t) -> (text: String, next: off_t)? {
        let available = Int(min(256, size - start))
        guard available > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: available)
        guard pread(fd, &bytes, available, start) == available else { return nil }
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else {
            if available == 256 { isBroken = true }
            return nil
        }
        return (String(decoding: bytes[..<newline], as: UTF8.self), start + off_t(newline + 1))
    }

    private func readFrame(size: off_t) -> I420Buffer? {
        if header == nil {
            guard let (text, next) = line(at: 0, size: size) else { return nil }
            guard let parsed = try? Y4MHeader(parsing: text[...]), parsed.colorSpace != .mono else {
                isBroken = true
                return nil
            }
            header = parsed
            offset = next
        }
        guard let header, let (text, dataStart) = line(at: offset, size: size) else { return nil }
        guard text.hasPrefix("FRAME") else {
            isBroken = true
            return nil
        }
        let frame = I420Buffer(width: header.width, height: header.height)
        let count = header.frameByteCount
        guard size - dataStart >= off_t(count), count == frame.bytes.count else { return nil }
        guard pread(fd, frame.bytes.baseAddress, count, dataStart) == count else { return nil }
        offset = dataStart + off_t(count)
        framesRead += 1
        return frame
    }
}
