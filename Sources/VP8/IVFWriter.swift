import MediaCore

/// Writes VP8 frames to an IVF file, the container vpxenc writes and every player reads.
///
/// Layout (all little-endian): a 32-byte file header `DKIF`, version 0, header size 32, fourcc
/// `VP80`, width, height, timebase denominator and numerator, frame count, 4 unused bytes; then
/// per frame a 12-byte header of payload size (4) and pts (8), and the payload.
/// The timebase is one frame interval, as vpxenc writes it, so the frame-count field is also the
/// duration that ffmpeg reads from it; pts are capture times rounded to the nearest frame slot.
///
/// The file goes through `OutputFile`: a regular file appears whole when `close()` renames it
/// into place, and a device or FIFO is written through (there the frame count stays 0 when the
/// output cannot seek back to the header, as vpxenc leaves it).
public final class IVFWriter {
    public let path: String
    private let output: OutputFile
    private let width: Int
    private let height: Int
    /// Timebase numerator and denominator: 1/30 for 30 fps, 1001/30000 for 29.97.
    private let timebase: (numerator: Int64, denominator: Int64)
    private var firstTimestampNs: Int64?
    private var lastPts: Int64?
    private var record: [UInt8] = []
    public private(set) var frameCount = 0

    /// Opens `path` by `OutputFile`'s rules and writes the header. Throws `IVFError` naming the file.
    public init(path: String, width: Int, height: Int, frameRate: Double) throws(IVFError) {
        self.path = path
        self.width = width
        self.height = height
        let whole = frameRate.rounded()
        timebase = abs(frameRate - whole) < 1e-6 ? (1, Int64(max(1, whole))) : (1001, Int64((frameRate * 1001).rounded()))
        do {
            output = try OutputFile(path: path)
        } catch {
            throw IVFError(error)
        }
        try write { () throws(OutputFileError) in try output.write(header(frameCount: 0)) }
    }

    /// Appends one frame at the frame slot nearest its capture time (and after the previous one).
    public func write(_ frame: EncodedFrame) throws(IVFError) {
        let first = firstTimestampNs ?? frame.timestampNs
        firstTimestampNs = first
        let elapsedNs = Double(frame.timestampNs - first)
        var pts = Int64((elapsedNs * Double(timebase.denominator) / (1e9 * Double(timebase.numerator))).rounded())
        if let lastPts, pts <= lastPts { pts = lastPts + 1 }
        lastPts = pts
        record.removeAll(keepingCapacity: true)
        record.appendLittleEndian(UInt32(frame.data.count))
        record.appendLittleEndian(UInt64(pts))
        record.append(contentsOf: frame.data)
        try write { () throws(OutputFileError) in try output.write(record) }
        frameCount += 1
    }

    /// Rewrites the header with the final frame count (where the output can seek) and finishes
    /// the file: everything written so far is kept.
    public func close() throws(IVFError) {
        try write { () throws(OutputFileError) in
            if output.isSeekable { try output.write(header(frameCount: frameCount), at: 0) }
            try output.commit()
        }
    }

    private func header(frameCount: Int) -> [UInt8] {
        var header = Array("DKIF".utf8)
        header.appendLittleEndian(UInt16(0))
        header.appendLittleEndian(UInt16(32))
        header.append(contentsOf: "VP80".utf8)
        header.appendLittleEndian(UInt16(width))
        header.appendLittleEndian(UInt16(height))
        header.appendLittleEndian(UInt32(timebase.denominator))
        header.appendLittleEndian(UInt32(timebase.numerator))
        header.appendLittleEndian(UInt32(frameCount))
        header.appendLittleEndian(UInt32(0))
        return header
    }

    private func write(_ body: () throws(OutputFileError) -> Void) throws(IVFError) {
        do {
            try body()
        } catch {
            throw IVFError(error)
        }
    }
}

/// An IVF file that could not be written.
public struct IVFError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let reason: String
    /// The errno behind it, when a system call failed (`ENOSPC` for a full disk).
    public let code: Int32?

    init(_ error: OutputFileError) {
        path = error.path
        reason = error.reason
        code = error.code
    }

    public var description: String { "\(path): \(reason)" }
}

extension Array where Element == UInt8 {
    fileprivate mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
