import Capture

/// Which camera `StreamPipeline.switchCamera(to:)` goes to: the other one, as a switch-camera
/// button does, one facing a given way, or one by name.
public enum CameraSelection: Sendable, Equatable, CustomStringConvertible {
    /// From a front camera the first back one and the other way round; otherwise the next
    /// camera in node order, wrapping around.
    case next
    /// The first camera facing this way; the current one if it already does.
    case position(CameraPosition)
    /// A node such as `/dev/video1`, or a camera's unique ID (its `/dev/v4l/by-id` name).
    case device(String)

    /// `front`, `back` or `external` for a position, anything else for a device; nil for `next`.
    public init(parsing text: String?) {
        guard let text, !text.isEmpty else {
            self = .next
            return
        }
        self = CameraPosition(rawValue: text).map(CameraSelection.position) ?? .device(text)
    }

    public var description: String {
        switch self {
        case .next: "the next camera"
        case .position(let position): "a \(position.rawValue) camera"
        case .device(let name): name
        }
    }

    /// The camera to switch to from `current` among `devices` (in node order), or nil when none
    /// fits. A device that is the current camera selects it.
    public func resolve(current: CameraDevice, among devices: [CameraDevice]) -> CameraDevice? {
        switch self {
        case .next:
            let opposite: CameraPosition? = switch current.position {
            case .front: .back
            case .back: .front
            case .external: nil
            }
            if let opposite, let match = devices.first(where: { $0.position == opposite && $0.path != current.path }) {
                return match
            }
            guard let index = devices.firstIndex(where: { $0.path == current.path }) else { return devices.first }
            return (devices[(index + 1)...] + devices[..<index]).first
        case .position(let position):
            return current.position == position ? current : devices.first { $0.position == position }
        case .device(let name):
            return devices.first { $0.path == name || $0.uniqueID == name }
        }
    }
}
