import FoundationEssentials
import Glibc

/// The network impairment relay (`Tests/Tools/impairment_relay.py`) as a running child process:
/// loss, delay, jitter and a bottleneck between a sender and a receiver, in both directions.
///
/// The sender sends to a lane's `listenPort` and hears feedback from it; the receiver gets the
/// packets from the lane's `innerPort` and sends its feedback there. Impairments are the
/// script's own flags (see its `--help`), passed through as `options`.
public final class ImpairmentRelay {
    /// A port pair to relay; port 0 lets the relay pick a free one.
    public struct Lane: Sendable {
        public var listenPort: UInt16
        public var targetHost: String
        public var targetPort: UInt16
        public var innerPort: UInt16

        public init(listenPort: UInt16 = 0, targetHost: String = "127.0.0.1", targetPort: UInt16, innerPort: UInt16 = 0) {
            self.listenPort = listenPort
            self.targetHost = targetHost
            self.targetPort = targetPort
            self.innerPort = innerPort
        }

        var argument: String { "\(listenPort):\(targetHost):\(targetPort)@\(innerPort)" }
    }

    /// A lane as bound: the ports the relay really listens on.
    public struct BoundLane: Codable, Sendable, Equatable {
        /// Where the sender sends, and where its feedback comes from.
        public let listenPort: UInt16
        /// Where the receiver's packets come from, and where it sends its feedback.
        public let innerPort: UInt16
        /// The receiver, as HOST:PORT.
        public let target: String
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The script, found from this file's place in the repository.
    public static let scriptPath: String = {
        var components = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(2)  // TestSupport/ImpairmentRelay.swift
        return (components + ["Tools", "impairment_relay.py"]).joined(separator: "/")
    }()

    /// Debian's interpreter when present, else the one on PATH: the script needs only the standard library.
    public static var python: ExternalTool {
        ExternalTool(FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3")
    }

    public let lanes: [BoundLane]
    private let process: ExternalTool.Running
    private let folder: TemporaryDirectory
    private let statsPath: String

    /// Starts the relay and returns once every socket is bound (its ready file appeared).
    public init(lanes: [Lane], options: [String] = [], readyTimeoutSeconds: Double = TestPatience.seconds) throws {
        let folder = TemporaryDirectory()
        let readyPath = folder.file("ready.json"), statsPath = folder.file("stats.json")
        let arguments = [Self.scriptPath] + lanes.flatMap { ["--lane", $0.argument] } + options
            + ["--ready-file", readyPath, "--stats-json", statsPath]
        let process = try Self.python.start(arguments)
        guard Self.waitForFile(readyPath, in: folder.path, timeoutSeconds: readyTimeoutSeconds, while: { process.isRunning }) else {
            process.interrupt()
            let result = process.wait(timeout: 5)
            throw Failure(description: "the impairment relay did not become ready (exit \(result.status)): \(result.stderr)")
        }
        struct Ready: Decodable { let lanes: [BoundLane] }
        let ready = try Self.decoder.decode(Ready.self, from: Data(contentsOf: URL(filePath: readyPath)))
        self.process = process
        self.folder = folder
        self.statsPath = statsPath
        self.lanes = ready.lanes
    }

    deinit {
        if process.isRunning {
            process.interrupt()
            _ = process.wait(timeout: 5)
        }
    }

    /// Stops the relay with SIGINT, as a person would, and returns what it counted.
    public func stop(timeoutSeconds: Double = TestPatience.seconds) throws -> ImpairmentRelayStats {
        process.interrupt()
        let result = process.wait(timeout: timeoutSeconds)
        guard !result.timedOut, result.status == 0 else {
            throw Failure(description: "the impairment relay did not stop cleanly (exit \(result.status)): \(result.stderr)")
        }
        return try Self.decoder.decode(ImpairmentRelayStats.self, from: Data(contentsOf: URL(filePath: statsPath)))
    }

    /// The packet indices the loss model drops among the first `count` of each direction, from
    /// the script itself (`--print-drops`), for the loss flags and seed in `options`.
    public static func predictedDrops(options: [String], count: Int) throws -> (forward: [Int], reverse: [Int]) {
        let result = try python.run([scriptPath, "--print-drops", "\(count)"] + options, timeout: 60)
        guard result.status == 0 else { throw Failure(description: "--print-drops failed (exit \(result.status)): \(result.stderr)") }
        struct Drops: Decodable { let forward: [Int], reverse: [Int] }
        let drops = try decoder.decode(Drops.self, from: Data(result.stdout.utf8))
        return (drops.forward, drops.reverse)
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }

    /// Waits for `path` to appear in `directory` (written by rename, so it is whole when seen):
    /// woken by inotify, and checking `condition` (the writer is alive) at least every 100 ms.
    static func waitForFile(_ path: String, in directory: String, timeoutSeconds: Double, while condition: () -> Bool) -> Bool {
        let watch = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        defer { if watch >= 0 { close(watch) } }
        if watch >= 0 { _ = inotify_add_watch(watch, directory, UInt32(IN_MOVED_TO | IN_CLOSE_WRITE)) }
        let deadline = ContinuousClock.now + .milliseconds(Int(timeoutSeconds * 1000))
        var events = [UInt8](repeating: 0, count: 4096)
        while !FileManager.default.fileExists(atPath: path) {
            guard condition(), ContinuousClock.now < deadline else { return FileManager.default.fileExists(atPath: path) }
            var descriptor = pollfd(fd: watch, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, 100) == 1 { _ = read(watch, &events, events.count) }
        }
        return true
    }
}
