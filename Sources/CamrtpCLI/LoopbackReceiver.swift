import Capture
import Glibc
import MediaCore
import Subprocess
import Synchronization
import SystemPackage
import Transport

/// A receiver we did not write, on this machine: ffplay to watch, or ffmpeg headless, whose
/// decoded frames we read back to say what arrived. swift-subprocess starts it (with every signal
/// at its default action and an empty mask) and reaps it.
final class LoopbackReceiver: Sendable {
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
    private let processID: pid_t
    private let exitSignal: ExitSignal
    private let decoded: DecodedFrames
    private let reader: MediaThread?

    private init(kind: Kind, processID: pid_t, exitSignal: ExitSignal, decoded: DecodedFrames, reader: MediaThread?) {
        self.kind = kind
        self.processID = processID
        self.exitSignal = exitSignal
        self.decoded = decoded
        self.reader = reader
    }

    /// Starts the receiver on `sdpPath`; headless unless a display is there and `headless` is off.
    static func start(sdpPath: String, srtp: Bool, headless: Bool) async throws -> LoopbackReceiver {
        let hasDisplay = getenv("DISPLAY") != nil || getenv("WAYLAND_DISPLAY") != nil
        var kind = Kind.ffmpeg
        var path: FilePath?
        if !headless && hasDisplay, let ffplay = await locate(.ffplay) {
            (kind, path) = (.ffplay, ffplay)
        } else {
            path = await locate(.ffmpeg)
        }
        guard let path else {
            throw CLIError.runtime("loopback needs ffmpeg as the receiver: sudo apt-get install ffmpeg")
        }
        let whitelist = srtp ? "file,udp,rtp,srtp" : "file,udp,rtp"
        let arguments: [String]
        let output: FileDescriptor
        var decodedFrames: FileDescriptor?
        switch kind {
        case .ffplay:
            arguments = [
                "-hide_banner", "-loglevel", "warning", "-protocol_whitelist", whitelist, "-fflags", "nobuffer",
                "-flags", "low_delay", "-framedrop", "-nofind_stream_info", "-window_title", "camrtp loopback", sdpPath,
            ]
            output = .standardOutput
        case .ffmpeg:
            arguments = [
                "-nostdin", "-hide_banner", "-loglevel", "warning", "-threads", "1", "-listen_timeout", "2",
                "-localaddr", "127.0.0.1", "-protocol_whitelist", whitelist, "-i", sdpPath,
                "-fps_mode", "passthrough", "-f", "yuv4mpegpipe", "-",
            ]
            let pipe = try FileDescriptor.pipe()
            output = pipe.writeEnd
            decodedFrames = pipe.readEnd
        }
        let exitSignal = ExitSignal()
        let processID: pid_t
        do {
            processID = try await exitSignal.run(
                path, arguments: arguments,
                output: .fileDescriptor(output, closeAfterSpawningProcess: decodedFrames != nil))
        } catch {
            try? decodedFrames?.close()
            throw CLIError.runtime("cannot start \(kind.rawValue): \(error)")
        }
        let decoded = DecodedFrames()
        let reader = decodedFrames.map { fd in
            MediaThread(name: "camrtp.receiver") {
                readDecodedFrames(from: fd, into: decoded)
                try? fd.close()
            }
        }
        return LoopbackReceiver(kind: kind, processID: processID, exitSignal: exitSignal, decoded: decoded, reader: reader)
    }

    var isRunning: Bool { !exitSignal.hasExited }

    var report: Report { decoded.report.withLock { $0 } }

    /// Waits until the receiver has opened its socket on UDP `port`.
    func waitUntilListening(port: UInt16, timeoutSeconds: Double = 5) -> Bool {
        LocalUDPPort.waitUntilBound(port, timeoutSeconds: timeoutSeconds) { isRunning }
    }

    /// Stops the receiver at once, without waiting: for a signal's clean-up.
    func terminate() {
        if isRunning { kill(processID, SIGTERM) }
    }

    /// Lets ffmpeg finish on its own (it stops about 2 s after the last packet), or closes ffplay;
    /// anything still running after `graceSeconds` is stopped.
    func finish(graceSeconds: Double) {
        let graceNs = kind == .ffmpeg ? Int64(graceSeconds * 1e9) : 0
        if !exitSignal.wait(untilNs: MonotonicClock.nowNs() + graceNs) {
            kill(processID, SIGTERM)
            if !exitSignal.wait(untilNs: MonotonicClock.nowNs() + 2_000_000_000) {
                kill(processID, SIGKILL)
                exitSignal.wait(untilNs: .max)
            }
        }
        reader?.join()
    }

    private static func locate(_ kind: Kind) async -> FilePath? {
        try? await Executable.name(kind.rawValue).resolveExecutablePath(in: .inherit)
    }

    private static func readDecodedFrames(from fd: FileDescriptor, into decoded: DecodedFrames) {
        guard let stream = try? Y4MStreamReader(fileDescriptor: fd.rawValue, name: "ffmpeg output") else { return }
        let buffer = I420Buffer(width: stream.header.width, height: stream.header.height)
        decoded.report.withLock { decoded in
            decoded.width = stream.header.width
            decoded.height = stream.header.height
        }
        while (try? stream.readFrame(into: buffer)) == true {
            let index = TestPatternRenderer.readIndex(from: buffer)
            decoded.report.withLock { decoded in
                decoded.frames += 1
                if let index { decoded.indices.insert(index) }
            }
        }
    }
}

/// What the reader thread has decoded so far.
private final class DecodedFrames: Sendable {
    let report = Mutex(LoopbackReceiver.Report())
}

/// Runs the receiver's process and tells, from any thread, once it has exited and been reaped.
private final class ExitSignal: @unchecked Sendable {
    private let condition = ThreadCondition()
    /// Guarded by `condition`.
    private var exited = false

    var hasExited: Bool { condition.withLock { exited } }

    /// Starts the program and returns its process ID; the exit is signalled when it has been
    /// reaped. Standard error stays camrtp's.
    func run(_ path: FilePath, arguments: [String], output: FileDescriptorOutput) async throws -> pid_t {
        try await withCheckedThrowingContinuation { (started: CheckedContinuation<pid_t, any Error>) in
            Task {
                var resumed = false
                do {
                    _ = try await Subprocess.run(
                        .path(path), arguments: Arguments(arguments), input: .none, output: output,
                        error: .fileDescriptor(.standardError, closeAfterSpawningProcess: false)
                    ) { execution in
                        resumed = true
                        started.resume(returning: execution.processIdentifier.value)
                    }
                } catch {
                    if !resumed { started.resume(throwing: error) }
                }
                condition.withLock {
                    exited = true
                    condition.broadcast()
                }
            }
        }
    }

    /// Waits until the process has exited or `MonotonicClock` reads `deadlineNs`; true if it exited.
    @discardableResult
    func wait(untilNs deadlineNs: Int64) -> Bool {
        condition.withLock {
            while !exited {
                if MonotonicClock.nowNs() >= deadlineNs { return false }
                condition.wait(untilNs: deadlineNs)
            }
            return true
        }
    }
}
