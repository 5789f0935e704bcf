import CameraRTP
import Capture
import ImageEncoding

/// One command for a running stream, as `camrtp ctl` words or a line of JSON on the control
/// socket:
///
/// | words                          | JSON                                                  |
/// |--------------------------------|-------------------------------------------------------|
/// | `snapshot FILE`                | `{"command":"snapshot","path":"/abs/still.jpg"}`      |
/// | `keyframe`                     | `{"command":"keyframe"}`                              |
/// | `bitrate KBPS`                 | `{"command":"bitrate","value":800}`                   |
/// | `switch [front\|back\|DEVICE]` | `{"command":"switch","camera":"front"}`               |
/// | `control NAME=VALUE`           | `{"command":"control","name":"zoom_absolute","value":200}` |
/// | `orientation NAME`             | `{"command":"orientation","value":"portrait"}`        |
/// | `mirror on\|off`               | `{"command":"mirror","value":true}`                   |
/// | `stats`                        | `{"command":"stats"}`                                 |
public enum StreamCommand: Sendable, Equatable {
    /// A still of the next frame, written to an absolute path (`.jpg`, `.jpeg` or `.png`).
    case snapshot(path: String)
    case keyframe
    case bitrate(kbps: Int)
    case switchCamera(CameraSelection)
    case control(CameraControlSetting)
    case orientation(DeviceOrientation)
    case mirror(Bool)
    case stats

    /// The command names, in the order help lists them.
    public static let names = ["snapshot", "keyframe", "bitrate", "switch", "control", "orientation", "mirror", "stats"]

    /// Parses `camrtp ctl` words such as `["bitrate", "800"]`. A snapshot path must be absolute
    /// here: `camrtp ctl` resolves it against its own folder first.
    public init(words: [String]) throws(StreamCommandError) {
        guard let name = words.first else { throw .usage("no command; use one of \(Self.names.joined(separator: ", "))") }
        let arguments = Array(words.dropFirst())
        let request: StreamCommandRequest
        switch name {
        case "snapshot":
            request = StreamCommandRequest(command: name, path: try Self.single(arguments, of: name, "FILE"))
        case "switch":
            guard arguments.count <= 1 else { throw .usage("switch takes at most one camera: front, back or a device") }
            request = StreamCommandRequest(command: name, camera: arguments.first)
        case "control":
            let setting = try Self.single(arguments, of: name, "NAME=VALUE")
            let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw .usage("control takes NAME=VALUE, such as zoom_absolute=200 or torch=on, not '\(setting)'") }
            request = StreamCommandRequest(command: name, name: parts[0], value: .string(parts[1]))
        case "bitrate", "orientation", "mirror":
            let placeholder = ["bitrate": "KBPS", "orientation": "NAME", "mirror": "on|off"][name] ?? "VALUE"
            request = StreamCommandRequest(command: name, value: .string(try Self.single(arguments, of: name, placeholder)))
        default:
            guard arguments.isEmpty else { throw .usage("\(name) takes no arguments") }
            request = StreamCommandRequest(command: name)
        }
        try self.init(request: request)
    }

    /// Checks a decoded request, with the same rules for JSON from any client as for words.
    public init(request: StreamCommandRequest) throws(StreamCommandError) {
        let command = request.command ?? ""
        switch command {
        case "snapshot":
            guard let path = request.path, path.hasPrefix("/") else {
                throw .usage("snapshot needs \"path\": an absolute file name ending in .jpg, .jpeg or .png")
            }
            guard ImageFormat(fileName: path) != nil else {
                throw .usage("snapshot \(path): unknown image type; name the file with .jpg, .jpeg or .png")
            }
            self = .snapshot(path: path)
        case "keyframe":
            self = .keyframe
        case "stats":
            self = .stats
        case "bitrate":
            let range = StreamPipeline.bitrateRangeKbps
            guard let text = request.value?.text, let kbps = Int(text), range.contains(kbps) else {
                throw .usage("bitrate needs a whole number of kbit/s in \(range.lowerBound)...\(range.upperBound), not \(request.value?.text ?? "nothing")")
            }
            self = .bitrate(kbps: kbps)
        case "switch":
            self = .switchCamera(CameraSelection(parsing: request.camera))
        case "control":
            guard let name = request.name, let value = request.value?.text else {
                throw .usage("control needs \"name\" and \"value\", such as zoom_absolute and 200")
            }
            do {
                self = .control(try CameraControlSetting(parsing: "\(name)=\(value)"))
            } catch {
                throw .usage("\(error)")
            }
        case "orientation":
            guard let text = request.value?.text, let orientation = DeviceOrientation(rawValue: text) else {
                let known = DeviceOrientation.allCases.map(\.rawValue).joined(separator: ", ")
                throw .usage("orientation needs one of \(known), not \(request.value?.text ?? "nothing")")
            }
            self = .orientation(orientation)
        case "mirror":
            guard let text = request.value?.text, let on = ["on": true, "true": true, "off": false, "false": false][text] else {
                throw .usage("mirror needs on or off, not \(request.value?.text ?? "nothing")")
            }
            self = .mirror(on)
        default:
            throw .usage("unknown command '\(command)'; use one of \(Self.names.joined(separator: ", "))")
        }
    }

    /// The JSON request that carries this command.
    public var request: StreamCommandRequest {
        switch self {
        case .snapshot(let path): StreamCommandRequest(command: "snapshot", path: path)
        case .keyframe: StreamCommandRequest(command: "keyframe")
        case .bitrate(let kbps): StreamCommandRequest(command: "bitrate", value: .integer(kbps))
        case .switchCamera(let selection): StreamCommandRequest(command: "switch", camera: selection.text)
        case .control(let setting):
            StreamCommandRequest(command: "control", name: setting.control.rawValue, value: .integer(Int(setting.value)))
        case .orientation(let orientation): StreamCommandRequest(command: "orientation", value: .string(orientation.rawValue))
        case .mirror(let on): StreamCommandRequest(command: "mirror", value: .boolean(on))
        case .stats: StreamCommandRequest(command: "stats")
        }
    }

    private static func single(_ arguments: [String], of name: String, _ placeholder: String) throws(StreamCommandError) -> String {
        guard arguments.count == 1 else { throw .usage("\(name) takes one argument: \(name) \(placeholder)") }
        return arguments[0]
    }
}

extension CameraSelection {
    /// The word `switch` takes for this selection; nil for the next camera.
    var text: String? {
        switch self {
        case .next: nil
        case .position(let position): position.rawValue
        case .device(let name): name
        }
    }
}

/// A command that cannot be understood, with what to write instead.
public enum StreamCommandError: Error, CustomStringConvertible, Sendable, Equatable {
    case usage(String)

    public var description: String {
        switch self {
        case .usage(let message): message
        }
    }
}
