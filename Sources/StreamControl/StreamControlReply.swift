import CameraRTP
import Capture
import FoundationEssentials

/// The answer to one command, as one JSON object on one line: `{"ok":true,...}` with what the
/// command did, or `{"ok":false,"error":"...","failure":"invalid"}`. Fields a command does not
/// set are left out.
public struct StreamControlReply: Sendable, Codable, Equatable {
    /// Why a command failed.
    public enum Failure: String, Sendable, Codable {
        /// The command cannot be done as asked (a bad value, a missing or busy camera, a control
        /// the camera lacks): asking again the same way fails the same way. Nothing changed.
        case invalid
        /// Something failed while doing it, or the stream cannot take it now (not started, too
        /// many commands); it may work later.
        case failed
    }

    /// The still a `snapshot` wrote.
    public struct SnapshotFile: Sendable, Codable, Equatable {
        public var path: String
        public var width: Int
        public var height: Int
        public var sizeBytes: Int
        /// The capture time of the frame, on `CLOCK_MONOTONIC`.
        public var timestampNs: Int64

        public init(path: String, width: Int, height: Int, sizeBytes: Int, timestampNs: Int64) {
            self.path = path
            self.width = width
            self.height = height
            self.sizeBytes = sizeBytes
            self.timestampNs = timestampNs
        }
    }

    /// A camera control as the driver holds it after a `control`.
    public struct ControlValue: Sendable, Codable, Equatable {
        public var name: String
        public var value: Int32

        public init(name: String, value: Int32) {
            self.name = name
            self.value = value
        }
    }

    public var ok: Bool
    public var error: String?
    public var failure: Failure?
    public var snapshot: SnapshotFile?
    public var targetBitrateKbps: Int?
    /// The camera streaming after a `switch`.
    public var camera: StreamControlStatus.Camera?
    public var control: ControlValue?
    public var orientation: DeviceOrientation?
    public var mirror: Bool?
    /// `stats`: the pipeline's figures, and what its controls are set to.
    public var stats: StatsSnapshot?
    public var status: StreamControlStatus?

    public init(
        ok: Bool = true, error: String? = nil, failure: Failure? = nil, snapshot: SnapshotFile? = nil,
        targetBitrateKbps: Int? = nil, camera: StreamControlStatus.Camera? = nil, control: ControlValue? = nil,
        orientation: DeviceOrientation? = nil, mirror: Bool? = nil, stats: StatsSnapshot? = nil, status: StreamControlStatus? = nil
    ) {
        self.ok = ok
        self.error = error
        self.failure = failure
        self.snapshot = snapshot
        self.targetBitrateKbps = targetBitrateKbps
        self.camera = camera
        self.control = control
        self.orientation = orientation
        self.mirror = mirror
        self.stats = stats
        self.status = status
    }

    public static func failed(_ failure: Failure, _ message: String) -> StreamControlReply {
        StreamControlReply(ok: false, error: message, failure: failure)
    }
}

/// One JSON object per line, both ways, with keys in a fixed order and slashes left alone.
enum JSONLine {
    static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Our own Codable types always encode; the fallback keeps a reply well-formed regardless.
        let data = (try? encoder.encode(value)) ?? Data(#"{"ok":false,"error":"cannot encode the answer","failure":"failed"}"#.utf8)
        return [UInt8](data) + [UInt8(ascii: "\n")]
    }

    static func decode<Value: Decodable>(_ type: Value.Type, from line: ArraySlice<UInt8>) throws -> Value {
        try JSONDecoder().decode(type, from: Data(line))
    }
}
