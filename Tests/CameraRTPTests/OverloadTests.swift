import CameraRTP
import Foundation
import MediaCore
import Testing
import VP8

/// A real encoder that cannot keep up: 1920×1080 at 60 fps with libvpx's slowest fixed real-time
/// speed (cpu-used −1; 0 and positive values speed up by themselves to keep up).
@Suite struct OverloadTests {
    @Test func latencyStaysBoundedAndMemoryFlatWhenTheEncoderFallsBehind() async throws {
        let fps = 60.0
        let source = CaptureSource.testPattern(width: 1920, height: 1080, fps: fps, pace: .realtime, rotation: .deg0)
        var settings = VP8EncoderSettings(width: 1920, height: 1080, maxFramerate: fps, bitrateKbps: 4000, cpuUsed: -1)
        settings.threads = 1
        let pipeline = try StreamPipeline(
            source: source, configuration: PipelineConfiguration(encoder: settings, durationSeconds: 4),
            sink: CollectingSink(keepsFrames: false))
        let task = Task { try await pipeline.run() }
        try await Task.sleep(for: .seconds(1.5))
        let residentEarly = Self.residentBytes()
        let stats = try await task.value
        let residentLate = Self.residentBytes()

        #expect(stats.framesEncoded + stats.totalDropped == stats.framesCaptured)
        #expect(stats.framesEncoded < stats.framesCaptured * 2 / 3, "the encoder should not keep up: \(stats)")
        #expect((stats.framesDropped["late"] ?? 0) > stats.framesCaptured / 4, "\(stats.framesDropped)")
        // A frame that is encoded waited in the one-slot mailbox for at most one frame interval
        // (a newer one would have replaced it) and one encode in progress; 2 intervals + 1 encode
        // bounds it with room for the capture thread's own scheduling.
        let intervalMs = 1000 / fps
        #expect(stats.latencyMs.p99 <= 2 * intervalMs + stats.encodeMs.p99 + 5, "latency \(stats.latencyMs), encode \(stats.encodeMs)")
        #expect(stats.latencyMs.max <= 100 + stats.encodeMs.p99 + 10, "older frames are dropped as tooOld")
        #expect(residentLate - residentEarly < 16 << 20, "resident memory grew \((residentLate - residentEarly) >> 20) MiB")
    }

    /// Resident set size of this process, from /proc/self/statm.
    static func residentBytes() -> Int {
        let fields = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8))?.split(separator: " ") ?? []
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }
}
