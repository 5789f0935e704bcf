import Foundation
import MediaCore
import RTP
import Synchronization
import TestSupport

/// Receives a live RTP stream on loopback and keeps, for every frame, what a receiver sees:
/// when it arrived, its SSRC, sequence numbers and timestamp, whether it is a keyframe, the size
/// libvpx decodes it to, and its CVO rotation. It checks sequence numbers as it goes (the
/// depacketizer refuses a gap).
final class StreamWatcher: @unchecked Sendable {
    struct Frame {
        var receivedNs: Int64
        var ssrc: UInt32
        var timestamp: UInt32
        var isKeyframe: Bool
        var width: Int
        var height: Int
        var rotation: VideoRotation?
    }

    static let videoOrientationID: UInt8 = 13
    let socket: LoopbackSocket
    /// Where RTCP goes, so that it does not mix with RTP.
    let rtcpSocket: LoopbackSocket
    private let state = Mutex<(frames: [Frame], problems: [String])>(([], []))
    private let stopped = Atomic<Bool>(false)
    private var thread: MediaThread?

    init() throws {
        socket = try LoopbackSocket(ipv6: false)
        rtcpSocket = try LoopbackSocket(ipv6: false)
        thread = MediaThread(name: "test.watch") { [unowned self] in receive() }
    }

    deinit { stop() }

    var frames: [Frame] { state.withLock { $0.frames } }
    var problems: [String] { state.withLock { $0.problems } }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        thread?.join()
    }

    /// Waits until `condition` holds for the frames so far, at most 20 s, without holding a
    /// thread of the concurrency pool.
    func wait(until condition: ([Frame]) -> Bool) async -> Bool {
        let deadline = TestPatience.deadlineNs
        while MonotonicClock.nowNs() < deadline {
            if condition(frames) { return true }
            try? await Task.sleep(nanoseconds: 2_000_000)
        }
        return condition(frames)
    }

    private func receive() {
        var depacketizer = VP8Depacketizer(videoOrientationExtensionID: Self.videoOrientationID)
        guard let decoder = try? VP8TestDecoder() else {
            state.withLock { $0.problems.append("no VP8 decoder") }
            return
        }
        while !stopped.load(ordering: .relaxed) {
            guard let packet = socket.receive(timeoutMilliseconds: 50) else { continue }
            let receivedNs = MonotonicClock.nowNs()
            do {
                let header = try RTPHeader(parsing: packet)
                guard let frame = try depacketizer.push(packet) else { continue }
                let picture = try decoder.decode(frame.data)
                let entry = Frame(
                    receivedNs: receivedNs, ssrc: header.ssrc, timestamp: frame.timestamp,
                    isKeyframe: (frame.data.first ?? 1) & 1 == 0, width: picture?.width ?? 0, height: picture?.height ?? 0,
                    rotation: frame.videoOrientation?.rotation)
                state.withLock { $0.frames.append(entry) }
            } catch {
                state.withLock { $0.problems.append("\(error)") }
            }
        }
    }
}

extension RTPHeader {
    init(parsing packet: [UInt8]) throws {
        self = try packet.withUnsafeBytes { raw in try RTPHeader(parsing: raw) }
    }
}
