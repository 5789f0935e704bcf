import MediaCore
import VP8

/// Writes the encoded stream to an IVF file: `camrtp record`.
public final class IVFRecorder: EncodedFrameSink, @unchecked Sendable {
    private var writer: IVFWriter?
    private var reporter = SinkReporter.ignoring
    public let path: String
    private let frameRate: Double

    /// The file is created with the first frame, at that frame's size.
    public init(path: String, frameRate: Double) {
        self.path = path
        self.frameRate = frameRate
    }

    public func attach(encoder: any EncoderControl, reporter: SinkReporter) {
        self.reporter = reporter
    }

    public func consume(_ frame: EncodedFrame) throws {
        let writer = try writer ?? IVFWriter(path: path, width: frame.width, height: frame.height, frameRate: frameRate)
        self.writer = writer
        try writer.write(frame)
        reporter.report(.frameDelivered(
            timestampNs: frame.timestampNs, packets: 1, bytes: frame.data.count, deliveredNs: MonotonicClock.nowNs()))
    }

    public func finish() throws {
        try writer?.close()
        writer = nil
    }
}
