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
}
