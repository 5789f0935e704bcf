import Foundation

/// Janus's VideoRoom plugin, the SFU that forwards a publisher's VP8 simulcast encodings (by
/// rid) and temporal layers to each subscriber as it asks; with a WHIP bridge in front of it
/// (Janus has no WHIP endpoint) and aiortc subscribers behind it.
extension JanusServer {
    static let videoRoomPlugin = "libjanus_videoroom.so"

    /// A room for VP8 publishers, with enough bitrate for three simulcast encodings.
    public struct VideoRoom: Sendable {
        public var id: Int
        /// Janus's REMB cap for each publisher, bit/s.
        public var bitrate: Int
        /// Seconds between the keyframe requests Janus sends a publisher on its own.
        public var keyframeRequestInterval: Int

        public init(id: Int, bitrate: Int = 3_000_000, keyframeRequestInterval: Int = 10) {
            self.id = id
            self.bitrate = bitrate
            self.keyframeRequestInterval = keyframeRequestInterval
        }
    }

    /// Why the VideoRoom tests cannot run here (no VideoRoom plugin, no aiortc or aiohttp), or nil.
    public static var videoRoomUnavailableReason: String? {
        if let reason = unavailableReason ?? viewerUnavailableReason { return reason }
        guard let library = libraryFolder, FileManager.default.fileExists(atPath: "\(library)/plugins/\(videoRoomPlugin)") else {
            return "Janus's VideoRoom plugin is missing"
        }
        guard let result = try? ExternalTool("/usr/bin/python3").run(["-c", "import aiohttp"], timeout: 60), result.status == 0 else {
            return "the WHIP bridge needs aiohttp for /usr/bin/python3 (apt-get install python3-aiohttp)"
        }
        return nil
    }

    static func videoRoomConfiguration(_ rooms: [VideoRoom]) -> String {
        "general: {\n}\n" + rooms.map { room in
            let lines = [
                "description = \"camrtp \(room.id)\"", "publishers = 4", "bitrate = \(room.bitrate)",
                "fir_freq = \(room.keyframeRequestInterval)", "videocodec = \"vp8\"",
                "transport_wide_cc_ext = true", "notify_joining = false",
            ]
            return "room-\(room.id): {\n" + lines.map { "\t\($0)\n" }.joined() + "}\n"
        }.joined()
    }

    /// Tests/Tools/whip_videoroom_bridge.py, a WHIP endpoint whose publishers join VideoRoom rooms.
    public static let bridgeScriptPath = TestTools.path("whip_videoroom_bridge.py")
    /// Tests/Tools/janus_videoroom_subscriber.py, an aiortc subscriber of one substream and layer.
    public static let subscriberScriptPath = TestTools.path("janus_videoroom_subscriber.py")

    /// Starts the WHIP bridge on 127.0.0.2 in `namespace` and returns it with its port.
    public static func startBridge(in namespace: NetworkNamespace) throws -> (process: ExternalTool.Running, port: UInt16) {
        let bridge = try namespace.start(["/usr/bin/python3", bridgeScriptPath, "--janus", apiURL, "--host", NetworkNamespace.ipv4Address])
        guard let line = bridge.waitForLine(containing: "\"listening\"", in: .stdout),
            let port = VideoRoomEvent.parse(line).first?.port
        else {
            bridge.interrupt()
            let result = bridge.wait(timeout: 10)
            throw Failure(description: "the WHIP bridge did not start: \(result.stdout) \(result.stderr)")
        }
        return (bridge, UInt16(port))
    }

    /// Starts a subscriber of `feed` in `room` that measures `frames` pictures of one substream
    /// and temporal layer (see the script for its report).
    public static func startSubscriber(
        room: Int, feed: Int, substream: Int, temporal: Int, frames: Int, in namespace: NetworkNamespace
    ) throws -> ExternalTool.Running {
        try namespace.start([
            "/usr/bin/python3", subscriberScriptPath, "--url", apiURL, "--room", "\(room)", "--feed", "\(feed)",
            "--substream", "\(substream)", "--temporal", "\(temporal)", "--frames", "\(frames)", "--timeout", "\(Int(TestPatience.seconds))",
        ])
    }
}

/// One line of the bridge's, a subscriber's or the Chromium publisher's report.
public struct VideoRoomEvent: Decodable, Sendable {
    public let event: String
    public let t: Double
    public let port: Int?
    public let feed: Int?
    public let sdp: String?
    public let message: String?
    public let frames: Int?
    /// Decoded sizes with their counts, [width, height, count].
    public let sizes: [[Int]]?
    /// Distinct RTP timestamps among the measured pictures.
    public let timestamps: Int?
    /// Pictures per second of RTP time.
    public let fps: Double?

    public static func parse(_ text: String) -> [VideoRoomEvent] {
        text.split(separator: "\n").compactMap { try? JSONDecoder().decode(VideoRoomEvent.self, from: Data($0.utf8)) }
    }
}
