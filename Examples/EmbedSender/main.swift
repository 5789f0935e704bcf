// Embedding camrtp in a backend: capture, watch the frames yourself, and publish RTP into an
// SFU (a Janus streaming mountpoint or a mediasoup PlainTransport listening on HOST:PORT).
//
//   swift run EmbedSender 127.0.0.1:5004
//
// It streams the test pattern for five seconds; swap in a camera with
// `CameraVideoCapturer` or a file with `CaptureSource.y4m(...)`.
import Adaptation
import CameraRTP
import Glibc
import MediaCore
import PlainRTP
import RTPSender
import Synchronization
import Transport
import VP8

/// An application sink beside the encoder: it sees every adapted frame on the capture thread.
final class FrameCounter: VideoSink, Sendable {
    private let count = Mutex(0)

    func onFrame(_ frame: VideoFrame) {
        count.withLock { $0 += 1 }
    }

    var frames: Int { count.withLock { $0 } }
}

let destination = CommandLine.arguments.dropFirst().first ?? "127.0.0.1:5004"
do {
    let endpoint = try Endpoint(parsing: destination)
    // The SFU's feedback (PLI when a viewer joins, REMB) reaches the sender on its RTCP port, so
    // keyframes can come on request alone.
    let plan = SessionPlan(destination: endpoint, rtcpDestination: endpoint.defaultRTCPEndpoint, frameRate: 30)
    print(plan.sessionDescription.serialized())

    let source = CaptureSource.testPattern(width: 1280, height: 720, fps: 30, pace: .realtime, rotation: .deg0)
    let pipeline = try StreamPipeline(
        source: source,
        configuration: PipelineConfiguration(
            encoder: VP8EncoderSettings(bitrateKbps: 1500, keyframes: .onRequest),
            outputSize: (960, 540), durationSeconds: 5),
        sink: try RTPVideoSender(configuration: plan.senderConfiguration()))
    let counter = FrameCounter()
    _ = pipeline.videoSource.addSink(counter)

    // Events arrive as an AsyncStream; cancel the task running `run()` to stop early.
    let events = Task {
        for await event in pipeline.events {
            if case .stats(let stats) = event {
                let rtt = stats.sender?.rttMs.map { ", RTT \($0.last) ms" } ?? ""
                print("\(stats.framesEncoded) frames, \(Int(stats.bitrateKbps)) kbit/s, latency p50 \(stats.latencyMs.p50) ms\(rtt)")
            }
        }
    }
    let stats = try await pipeline.run()
    await events.value
    print("done: \(stats.framesEncoded) encoded, the application sink saw \(counter.frames)")
} catch {
    print("EmbedSender: \(error)")
    exit(1)
}
