import Capture
import Foundation
import MediaCore

/// Writes and reads whole Y4M files for tests: source clips in, receivers' decoded output back.
public enum Y4MFile {
    /// Writes `count` test-pattern frames of the given size as a 4:2:0 Y4M file.
    public static func writeTestPattern(to path: String, width: Int, height: Int, count: Int, fps: Int = 30) throws {
        let renderer = TestPatternRenderer(width: width, height: height)
        let buffer = I420Buffer(width: width, height: height)
        var data = Data(Y4MHeader(width: width, height: height, frameRateNumerator: fps).serialized.utf8)
        for index in 0..<count {
            renderer.render(index: index, into: buffer)
            data.append(contentsOf: "FRAME\n".utf8)
            data.append(contentsOf: UnsafeRawBufferPointer(buffer.bytes))
        }
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// Reads every frame of a 4:2:0 Y4M file, such as one a receiver wrote.
    public static func readFrames(_ path: String) throws -> (header: Y4MHeader, frames: [I420Buffer]) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw Y4MError(path: path, problem: .cannotOpen(String(cString: strerror(errno)))) }
        defer { close(fd) }
        let reader = try Y4MStreamReader(fileDescriptor: fd, name: path)
        var frames: [I420Buffer] = []
        while true {
            let buffer = I420Buffer(width: reader.header.width, height: reader.header.height)
            guard try reader.readFrame(into: buffer) else { break }
            frames.append(buffer)
        }
        return (reader.header, frames)
    }

    /// Waits until the Y4M file a receiver is writing holds `count` whole frames of
    /// `width`×`height` (it may hold more); false if it stops growing for `idleTimeoutSeconds`.
    /// Tests wait on the file, not on the clock.
    public static func waitForFrames(
        _ count: Int, in path: String, width: Int, height: Int, idleTimeoutSeconds: Double = TestPatience.seconds
    ) -> Bool {
        let frameBytes = 6 + width * height * 3 / 2
        var lastSize = -1
        var idleSince = Date()
        while true {
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            if let header = try? headerLength(path), size >= header + count * frameBytes { return true }
            if size != lastSize {
                lastSize = size
                idleSince = Date()
            } else if Date().timeIntervalSince(idleSince) > idleTimeoutSeconds {
                return false
            }
            usleep(20_000)
        }
    }

    /// The length of the stream header line, newline included.
    private static func headerLength(_ path: String) throws -> Int {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        let head = try handle.read(upToCount: 256) ?? Data()
        guard let newline = head.firstIndex(of: UInt8(ascii: "\n")) else { throw CocoaError(.fileReadCorruptFile) }
        return newline - head.startIndex + 1
    }
}
