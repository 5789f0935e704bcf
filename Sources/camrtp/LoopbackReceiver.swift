import Capture
import Foundation
import MediaCore
import Transport

/// A receiver we did not write, on this machine: ffplay to watch, or ffmpeg headless, whose
/// decoded frames we read back to say what arrived.
final class LoopbackReceiver: @unchecked Sendable {
    enum Kind: String {
        case ffplay, ffmpeg
    }

    /// What the headless receiver decoded.
    struct Report {
        var frames = 0
        var width = 0
        var height = 0
        /// Test-pattern frame numbers seen, when the picture carries them.
        var indices = Set<Int>()
    }

    let kind: Kind
    private let process: Process
    private let lock = NSLock()
    private var decoded = Report()
    private var reader: MediaThread?

    /// Starts the receiver on `sdpPath`; headless unless a display is there and `headless` is off.
    init(sdpPath: String, srtp: Bool, headless: Bool) throws {
        let environment = ProcessInfo.processInfo.environment
        let hasDisplay = environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil
        let whitelist = srtp ? "file,udp,rtp,srtp" : "file,udp,rtp"
        kind = !headless && hasDisplay && Self.isInstalled("ffplay") ? .ffplay : .ffmpeg
        guard Self.isInstalled(kind.rawValue) else {
            throw CLIError.runtime("loopback needs ffmpeg as the receiver: sudo apt-get install ffmpeg")
        }
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.standardInput = FileHandle.nullDevice
        switch kind {
        case .ffplay:
            process.arguments = [
                "ffplay", "-hide_banner", "-loglevel", "warning", "-protocol_whitelist", whitelist, "-fflags", "nobuffer",
                "-flags", "low_delay", "-framedrop", "-nofind_stream_info", "-window_title", "camrtp loopback", sdpPath,
            ]
        case .ffmpeg:
            process.arguments = [
                "ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "warning", "-threads", "1", "-listen_timeout", "2",
                "-localaddr", "127.0.0.1", "-protocol_whitelist", whitelist, "-i", sdpPath,
                "-fps_mode", "passthrough", "-f", "yuv4mpegpipe", "-",
            ]
            let output = Pipe()
            process.standardOutput = output
            reader = MediaThread(name: "camrtp.receiver") { [weak self] in
                self?.readDecodedFrames(from: output.fileHandleForReading.fileDescriptor)
            }
        }
        try process.run()
    }

    var isRunning: Bool { process.isRunning }

    var report: Report { lock.withLock { decoded } }

    /// Waits until the receiver has opened its socket on UDP `port`.
    func waitUntilListening(port: UInt16, timeoutSeconds: Double = 5) -> Bool {
        LocalUDPPort.waitUntilBound(port, timeoutSeconds: timeoutSeconds) { process.isRunning }
    }

    /// Stops the receiver at once, without waiting: for a signal's clean-up.
    func terminate() {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
    }

    /// Lets ffmpeg finish on its own (it stops about 2 s after the last packet), or closes ffplay;
    /// anything still running after `graceSeconds` is stopped.
    func finish(graceSeconds: Double) {
        let deadline = Date().addingTimeInterval(kind == .ffmpeg ? graceSeconds : 0)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            let killDeadline = Date().addingTimeInterval(2)
            while process.isRunning && Date() < killDeadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
        reader?.join()
    }

    private func readDecodedFrames(from fd: Int32) {
        guard let stream = try? Y4MStreamReader(fileDescriptor: fd, name: "ffmpeg output") else { return }
        let buffer = I420Buffer(width: stream.header.width, height: stream.header.height)
        lock.withLock {
            decoded.width = stream.header.width
            decoded.height = stream.header.height
        }
        while (try? stream.readFrame(into: buffer)) == true {
            let index = TestPatternRenderer.readIndex(from: buffer)
            lock.withLock {
                decoded.frames += 1
                if let index { decoded.indices.insert(index) }
            }
        }
    }

    private static func isInstalled(_ tool: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
    }
}
