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
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let newline = data.firstIndex(of: 0x0A) else { throw Y4MProblem.badHeader("\(path) has no header line") }
        let header = try Y4MHeader(parsing: Substring(decoding: data[..<newline], as: UTF8.self))
        var frames: [I420Buffer] = []
        var offset = newline + 1
        let size = header.frameByteCount
        while offset < data.count {
            guard let lineEnd = data[offset...].firstIndex(of: 0x0A), lineEnd + 1 + size <= data.count else { break }
            let buffer = I420Buffer(width: header.width, height: header.height)
            data[(lineEnd + 1)..<(lineEnd + 1 + size)].withUnsafeBytes { buffer.bytes.copyMemory(from: $0) }
            frames.append(buffer)
            offset = lineEnd + 1 + size
        }
        return (header, frames)
    }
}
