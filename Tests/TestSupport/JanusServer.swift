import Foundation

/// Janus (Debian's `janus`, 1.1), the SFU a user who outgrows one machine puts in front of
/// browsers, run with a configuration of the test's own: the streaming plugin with plain RTP (or
/// SRTP) mountpoints and the VideoRoom plugin with its rooms (JanusServer+VideoRoom.swift), each
/// only when given some, and only the HTTP API. It runs in a network namespace because it
/// leaves loopback interfaces out of ICE, so a viewer must reach it on the namespace's veth
/// (127.0.0.2); the sender and the viewer run there too.
public final class JanusServer {
    /// A `type = "rtp"` mountpoint that takes VP8 on `videoPort` and reads, and answers, RTCP
    /// on `videoRTCPPort`: Janus sends its PLI and REMB to whatever last sent there.
    public struct Mountpoint: Sendable {
        public var id: Int
        public var videoPort: UInt16
        public var videoRTCPPort: UInt16
        public var payloadType = 96
        /// SRTP (AES_CM_128_HMAC_SHA1_80) with this base64 master key and salt.
        public var srtpKey: String?

        public init(id: Int, videoPort: UInt16, videoRTCPPort: UInt16, srtpKey: String? = nil) {
            self.id = id
            self.videoPort = videoPort
            self.videoRTCPPort = videoRTCPPort
            self.srtpKey = srtpKey
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Where Debian (or a local build) puts the plugin folders.
    static let libraryFolders = [
        "/usr/lib/x86_64-linux-gnu/janus", "/usr/lib/aarch64-linux-gnu/janus", "/usr/lib/janus", "/usr/local/lib/janus",
        "/opt/janus/lib/janus",
    ]

    static var libraryFolder: String? {
        libraryFolders.first { FileManager.default.fileExists(atPath: "\($0)/plugins/\(streamingPlugin)") }
    }

    static let streamingPlugin = "libjanus_streaming.so"

    /// Why Janus cannot run here, or nil when it can.
    public static var unavailableReason: String? {
        guard ExternalTool.locate("janus") != nil else { return "Janus is not installed (apt-get install janus)" }
        guard libraryFolder != nil, FileManager.default.fileExists(atPath: "\(libraryFolder!)/transports/libjanus_http.so") else {
            return "Janus's streaming plugin or HTTP transport is missing (looked in \(libraryFolders.joined(separator: ", ")))"
        }
        return NetworkNamespace.unavailableReason
    }

    public static let httpPort: UInt16 = 8088
    /// Janus's HTTP API, as seen from inside the namespace.
    public static var apiURL: String { "http://127.0.0.1:\(httpPort)/janus" }

    public let process: ExternalTool.Running
    public let configFolder = TemporaryDirectory()

    /// Writes the configuration, starts Janus in `namespace` and returns once its HTTP API
    /// listens (the plugins are loaded before the transports).
    public init(mountpoints: [Mountpoint] = [], rooms: [VideoRoom] = [], in namespace: NetworkNamespace) throws {
        guard let library = Self.libraryFolder else { throw Failure(description: Self.unavailableReason ?? "no Janus") }
        let plugins = (mountpoints.isEmpty ? [] : [Self.streamingPlugin]) + (rooms.isEmpty ? [] : [Self.videoRoomPlugin])
        try Self.configuration(library: library, folder: configFolder.path, plugins: plugins)
            .write(toFile: configFolder.file("janus.jcfg"), atomically: true, encoding: .utf8)
        try Self.httpConfiguration.write(toFile: configFolder.file("janus.transport.http.jcfg"), atomically: true, encoding: .utf8)
        try Self.streamingConfiguration(mountpoints)
            .write(toFile: configFolder.file("janus.plugin.streaming.jcfg"), atomically: true, encoding: .utf8)
        try Self.videoRoomConfiguration(rooms)
            .write(toFile: configFolder.file("janus.plugin.videoroom.jcfg"), atomically: true, encoding: .utf8)
        process = try namespace.start(["janus", "--configs-folder=\(configFolder.path)", "--disable-colors"])
        guard process.waitForLine(containing: "HTTP webserver started", in: .stdout, timeout: TestPatience.seconds) != nil else {
            process.interrupt()
            let result = process.wait(timeout: 10)
            throw Failure(description: "Janus did not start its HTTP API (exit \(result.status)): \(result.stdout.suffix(2_000)) \(result.stderr)")
        }
    }

    deinit {
        if process.isRunning {
            process.interrupt()
            _ = process.wait(timeout: 10)
        }
    }

    /// Waits for a line of Janus's log that contains `text`.
    public func waitForLog(_ text: String, timeout: Double = TestPatience.seconds) -> String? {
        process.waitForLine(containing: text, in: .stdout, timeout: timeout)
    }

    /// Stops Janus with SIGINT and returns its log.
    @discardableResult
    public func stop() -> String {
        process.interrupt()
        return process.wait(timeout: TestPatience.seconds).stdout
    }

    /// Tests/Tools/janus_viewer.py: aiortc watching a mountpoint through the HTTP API.
    public static let viewerScriptPath = TestTools.path("janus_viewer.py")

    /// Why the viewer cannot run here (it needs Debian's python3-aiortc), or nil when it can.
    public static var viewerUnavailableReason: String? {
        guard let result = try? ExternalTool("/usr/bin/python3").run(["-c", "import aiortc"], timeout: 60), result.status == 0 else {
            return "the Janus viewer needs aiortc for /usr/bin/python3 (apt-get install python3-aiortc)"
        }
        return nil
    }

    /// Starts a viewer of `mountpoint` in `namespace` that writes `frames` decoded pictures to
    /// `output` (Y4M) and reports on stdout, one JSON object a line (see the script).
    public static func startViewer(
        mountpoint: Int, frames: Int, output: String, in namespace: NetworkNamespace
    ) throws -> ExternalTool.Running {
        try namespace.start([
            "/usr/bin/python3", viewerScriptPath, "--url", apiURL, "--mountpoint", "\(mountpoint)", "--frames", "\(frames)",
            "--output", output,
        ])
    }

    // MARK: configuration files (libconfig syntax, .jcfg)

    /// Every plugin of `kind` in the library folder except those in `keep`.
    private static func disabled(_ kind: String, library: String, keep: [String]) -> String {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "\(library)/\(kind)")) ?? []
        return names.filter { $0.hasSuffix(".so") && !keep.contains($0) }.sorted().joined(separator: ",")
    }

    private static func configuration(library: String, folder: String, plugins: [String]) -> String {
        """
        general: {
        \tconfigs_folder = "\(folder)"
        \tplugins_folder = "\(library)/plugins"
        \ttransports_folder = "\(library)/transports"
        \tevents_folder = "\(library)/events"
        \tloggers_folder = "\(library)/loggers"
        \tdebug_level = 4
        \tsession_timeout = 120
        }
        media: {
        \trtp_port_range = "30000-31000"
        }
        nat: {
        \tice_enforce_list = "v0"
        \tnice_debug = false
        }
        plugins: {
        \tdisable = "\(disabled("plugins", library: library, keep: plugins))"
        }
        transports: {
        \tdisable = "\(disabled("transports", library: library, keep: ["libjanus_http.so"]))"
        }
        events: {
        \tbroadcast = false
        \tdisable = "\(disabled("events", library: library, keep: []))"
        }
        loggers: {
        \tdisable = "\(disabled("loggers", library: library, keep: []))"
        }

        """
    }

    private static let httpConfiguration = """
        general: {
        \tjson = "compact"
        \tbase_path = "/janus"
        \thttp = true
        \tport = \(httpPort)
        \thttps = false
        }
        admin: {
        \tadmin_http = false
        \tadmin_https = false
        }

        """

    private static func streamingConfiguration(_ mountpoints: [Mountpoint]) -> String {
        "general: {\n}\n" + mountpoints.map { mountpoint in
            var lines = [
                "type = \"rtp\"", "id = \(mountpoint.id)", "description = \"camrtp \(mountpoint.id)\"", "audio = false", "video = true",
                "videoport = \(mountpoint.videoPort)", "videortcpport = \(mountpoint.videoRTCPPort)", "videopt = \(mountpoint.payloadType)",
                "videocodec = \"vp8\"",
            ]
            if let key = mountpoint.srtpKey { lines += ["srtpsuite = 80", "srtpcrypto = \"\(key)\""] }
            return "camrtp-\(mountpoint.id): {\n" + lines.map { "\t\($0)\n" }.joined() + "}\n"
        }.joined()
    }
}
