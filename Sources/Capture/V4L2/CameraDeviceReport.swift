import FoundationEssentials
import Glibc
import MediaCore

/// Everything discovery finds, for `camrtp devices [--json]`: each camera with its formats,
/// rates and controls, and the video nodes that could not be examined with why.
public struct CameraDeviceReport: Sendable, Codable, Equatable {
    public struct Camera: Sendable, Codable, Equatable {
        public var device: CameraDevice
        public var formats: [CameraFormat]
        public var controls: [CameraControlInfo]
        /// Set when the formats or controls could not be read.
        public var problem: String?
    }

    public struct UnavailableNode: Sendable, Codable, Equatable {
        public var path: String
        public var problem: String
    }

    public var cameras: [Camera]
    public var unavailableNodes: [UnavailableNode]

    /// Asks every camera `capturer` can see for its formats and controls.
    public init(capturer: CameraVideoCapturer) {
        let discovery = capturer.discoverDevices()
        cameras = discovery.devices.map { device in
            do {
                return Camera(
                    device: device, formats: try capturer.supportedFormats(for: device),
                    controls: try capturer.controls(for: device), problem: nil)
            } catch {
                return Camera(device: device, formats: [], controls: [], problem: String(describing: error))
            }
        }
        unavailableNodes = discovery.failures.map { UnavailableNode(path: $0.path, problem: $0.description) }
    }

    /// The report for people; says so plainly when there is no camera.
    public var text: String {
        var lines: [String] = []
        if cameras.isEmpty { lines.append("No cameras found.") }
        for camera in cameras {
            let device = camera.device
            lines.append("\(device.name) — \(device.path)")
            lines.append("  id: \(device.uniqueID)")
            lines.append("  driver: \(device.driver), bus: \(device.busInfo)")
            lines.append("  position: \(device.position.rawValue), sensor rotation: \(device.sensorRotation.degrees)°")
            if let problem = camera.problem { lines.append("  problem: \(problem)") }
            if !camera.formats.isEmpty { lines.append("  formats:") }
            lines += camera.formats.map { "    \($0.summary)" }
            if !camera.controls.isEmpty { lines.append("  controls:") }
            lines += camera.controls.map { control in
                let value = control.value.map(String.init) ?? "write-only"
                let flags = (control.isReadOnly ? " read-only" : "") + (control.isInactive ? " inactive" : "")
                return "    \(control.control.rawValue) = \(value) (\(control.validValues), default \(control.defaultValue))\(flags)"
            }
        }
        for node in unavailableNodes {
            lines.append("\(node.path): \(node.problem)")
        }
        return lines.joined(separator: "\n")
    }

    /// Pretty-printed JSON with sorted keys, stable for scripts and diffs.
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
