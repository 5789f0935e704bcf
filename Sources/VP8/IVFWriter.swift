import Foundation
import MediaCore

/// Writes VP8 frames to an IVF file, the container vpxenc writes and every player reads.
///
/// Layout (all little-endian): a 32-byte file header `DKIF`, version 0, header size 32, fourcc
/// `VP80`, width, height, timebase denominator and numerator, frame count, 4 unused bytes; then
/// per frame a 12-byte header of payload size (4) and pts (8), and the payload.
/// The timebase is 1/90000 s, the RTP video clock, so pts come exactly from `timestampNs`.
public final class IVFWriter {
    public let path: String
    private let handle: FileHandle
    private let width: Int
    private let height: Int
    private var firstTimestampNs: Int64?
    public private(set) var frameCount = 0

    /// Creates or truncates `path`. Throws `IVFError` naming the file.
    public init(path: String, width: Int, height: Int) throws(IVFError) {
        self.path = path
        self.width = width
        self.height = height
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw IVFError(path: path, reason: "cannot create the file (check the folder exists and is writable)")
        }
        self.handle = handle
        try write(header(frameCount: 0))
    }

    /// Appends one frame; its pts is its capture time since the first frame, in 1/90000 s.
    public func write(_ frame: EncodedFrame) throws(IVFError) {
        let first = firstTimestampNs ?? frame.timestampNs
        firstTimestampNs = first
        var record = Data(capacity: 12 + frame.data.count)
        record.appendLittleEndian(UInt32(frame.data.count))
        record.appendLittleEndian(UInt64((frame.timestampNs - first) * 9 / 100_000))
        record.append(contentsOf: frame.data)
        try write(record)
        frameCount += 1
    }

    /// Rewrites the header with the final frame count and closes the file.
    public func close() throws(IVFError) {
        do {
            try handle.seek(toOffset: 0)
            try handle.write(contentsOf: header(frameCount: frameCount))
            try handle.close()
        } catch {
            throw IVFError(path: path, reason: "cannot finish the file: \(error.localizedDescription)")
        }
    }

    private func header(frameCount: Int) -> Data {
        var header = Data("DKIF".utf8)
        header.appendLittleEndian(UInt16(0))
        header.appendLittleEndian(UInt16(32))
        header.append(contentsOf: "VP80".utf8)
        header.appendLittleEndian(UInt16(width))
        header.appendLittleEndian(UInt16(height))
        header.appendLittleEndian(UInt32(90_000))
        header.appendLittleEndian(UInt32(1))
        header.appendLittleEndian(UInt32(frameCount))
        header.appendLittleEndian(UInt32(0))
        return header
    }

    private func write(_ data: Data) throws(IVFError) {
        do {
            try handle.write(contentsOf: data)
        } catch {
            throw IVFError(path: path, reason: "write failed: \(error.localizedDescription)")
        }
    }
}

/// An IVF file that could not be written.
public struct IVFError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let reason: String
    public var description: String { "\(path): \(reason)" }
}

extension Data {
    fileprivate mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
