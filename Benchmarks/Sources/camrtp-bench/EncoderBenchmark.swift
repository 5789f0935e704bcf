import Foundation
import Capture
import MediaCore
import VP8

/// Encodes the 720p test pattern through a pooled buffer, as the pipeline does, and counts the
/// heap allocations of the steady state (after the first `warmupFrames`).
struct EncoderBenchmark {
    struct Summary: Encodable {
        var width: Int
        var height: Int
        var bitrateKbps: Int
        var framesIn: Int
        var framesEncoded: Int
        var keyframes: Int
        var encodedBytes: Int
        var framesPerSecond: Double
        var steadyStateFrames: Int
        var mallocsPerFrame: Double
        var mallocBytesPerFrame: Double
        var poolAllocationCount: Int
    }

    static let width = 1280
    static let height = 720
    static let bitrateKbps = 1500
    static let warmupFrames = 30
    static let frameIntervalNs: Int64 = 1_000_000_000 / 30

    var summary: Summary
    /// The encoded frames, for the send-path benchmark.
    var frames: [EncodedFrame]

    static func run(frameCount: Int) throws -> EncoderBenchmark {
        precondition(frameCount > warmupFrames, "need more than \(warmupFrames) frames")
        let encoder = try VP8Encoder(
            settings: VP8EncoderSettings(bitrateKbps: bitrateKbps), format: VP8PictureFormat(width: width, height: height))
        let renderer = TestPatternRenderer(width: width, height: height)
        let pool = I420BufferPool(capacity: 2)
        var frames: [EncodedFrame] = []
        frames.reserveCapacity(frameCount)

        func encode(_ index: Int) throws {
            guard let buffer = pool.makeBuffer(width: width, height: height) else {
                fatalError("the pool ran dry: a buffer outlived its frame")
            }
            renderer.render(index: index, into: buffer)
            let frame = VideoFrame(buffer: buffer, timestampNs: Int64(index) * frameIntervalNs)
            if let encoded = try encoder.encode(frame) { frames.append(encoded) }
        }

        let start = now()
        for index in 0..<warmupFrames { try encode(index) }
        let steady = try AllocationCounter.measure { () throws in
            for index in warmupFrames..<frameCount { try encode(index) }
        }
        let elapsed = now() - start

        let steadyFrames = frameCount - warmupFrames
        let summary = Summary(
            width: width, height: height, bitrateKbps: bitrateKbps, framesIn: frameCount,
            framesEncoded: frames.count, keyframes: frames.count(where: \.isKeyframe),
            encodedBytes: frames.reduce(0) { $0 + $1.data.count },
            framesPerSecond: Double(frameCount) / elapsed, steadyStateFrames: steadyFrames,
            mallocsPerFrame: Double(steady.mallocs) / Double(steadyFrames),
            mallocBytesPerFrame: Double(steady.bytes) / Double(steadyFrames),
            poolAllocationCount: pool.allocationCount)
        return EncoderBenchmark(summary: summary, frames: frames)
    }

    func table() -> String {
        let s = summary
        return """
            Encoder: VP8 \(s.width)x\(s.height) @ \(s.bitrateKbps) kbit/s, test pattern, \(s.framesIn) frames (pooled I420 buffers)
              frames encoded          \(s.framesEncoded) (\(s.keyframes) keyframe(s), \(s.encodedBytes) bytes)
              encode speed            \(format(s.framesPerSecond, 1)) fps (render + encode, in process)
              mallocs per frame       \(format(s.mallocsPerFrame, 2)) (\(format(s.mallocBytesPerFrame, 0)) bytes), steady state over \(s.steadyStateFrames) frames
              I420BufferPool allocs   \(s.poolAllocationCount)\(s.poolAllocationCount == 1 ? "" : "  <-- expected 1")
            """
    }
}

func format(_ value: Double, _ decimals: Int) -> String {
    String(format: "%.\(decimals)f", value)
}
