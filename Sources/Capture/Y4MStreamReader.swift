import MediaCore

#if canImport(Glibc)
import Glibc
#endif

/// Reads a YUV4MPEG2 stream from a file descriptor, a file or a pipe (such as a receiver's
/// decoded output), straight into `I420Buffer`s: their planes are laid out exactly as a Y4M 4:2:0
/// frame, so each frame is one bulk read. The descriptor stays the caller's to close.
public final class Y4MStreamReader {
    public let header: Y4MHeader
    /// The name errors give for the stream: a path, or what the pipe carries.
    public let name: String
    private let fd: Int32
    private var frameIndex = 0

    /// Reads and checks the stream header.
    public init(fileDescriptor: Int32, name: String) throws(Y4MError) {
        fd = fileDescriptor
        self.name = name
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while line.count < 4096, read(fd, &byte, 1) == 1, byte != 0x0A { line.append(byte) }
        guard byte == 0x0A else { throw Y4MError(path: name, problem: .badHeader("no header line ending in a newline")) }
        do {
            header = try Y4MHeader(parsing: Substring(decoding: line, as: UTF8.self))
        } catch {
            throw Y4MError(path: name, problem: error)
        }
    }

    /// Reads the next frame into `buffer` (of the header's size); false at a clean end of stream.
    public func readFrame(into buffer: I420Buffer) throws(Y4MError) -> Bool {
        var tag = [UInt8](repeating: 0, count: 6)
        let tagCount = readFully(into: &tag, count: 6)
        if tagCount == 0 { return false }
        guard tagCount == 6, tag[0..<5].elementsEqual("FRAME".utf8), tag[5] == 0x0A || tag[5] == 0x20 else {
            throw Y4MError(path: name, problem: .badFrameHeader(frame: frameIndex))
        }
        if tag[5] == 0x20 { try skipFrameParameters() }
        let expected = header.frameByteCount
        let got = readFully(into: buffer.bytes.baseAddress!, count: expected)
        guard got == expected else {
            throw Y4MError(path: name, problem: .truncated(frame: frameIndex, got: got, expected: expected))
        }
        if header.colorSpace == .mono {
            let lumaCount = header.width * header.height
            UnsafeMutableRawBufferPointer(rebasing: buffer.bytes[lumaCount...]).initializeMemory(as: UInt8.self, repeating: 128)
        }
        frameIndex += 1
        return true
    }

    /// Numbers frames from 0 again, after the caller rewound the descriptor to the first frame.
    func restartNumbering() {
        frameIndex = 0
    }

    /// The longest run of parameters a `FRAME` line may carry (they are read and ignored).
    public static let maxFrameParameterBytes = 1024

    private func skipFrameParameters() throws(Y4MError) {
        var byte: UInt8 = 0
        var skipped = 0
        repeat {
            guard skipped < Self.maxFrameParameterBytes else {
                throw Y4MError(path: name, problem: .frameParametersTooLong(frame: frameIndex))
            }
            guard readFully(into: &byte, count: 1) == 1 else {
                throw Y4MError(path: name, problem: .truncated(frame: frameIndex, got: 0, expected: header.frameByteCount))
            }
            skipped += 1
        } while byte != 0x0A
    }

    /// Reads until `count` bytes or end of stream, retrying interrupted reads; returns bytes read.
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
