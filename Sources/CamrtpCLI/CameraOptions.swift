import ArgumentParser
import Capture

/// Settings for `--source camera` and `fake-camera`: how the device is held, which way the
/// camera faces, and controls to set before streaming.
struct CameraOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "How the device is held: \(DeviceOrientation.allCases.map(\.rawValue).joined(separator: ", ")).",
        discussion: "Sets the frames' rotation by WebRTC's table, with the camera position and the sensor's rotation.",
        valueName: "orientation"))
    var orientation: DeviceOrientation?

    @Option(help: ArgumentHelp(
        "front, back or external; overrides what the driver reports (V4L2_CID_CAMERA_ORIENTATION).", valueName: "position"))
    var cameraPosition: CameraPosition?

    @Option(name: .customLong("control"), help: ArgumentHelp(
        "Set a camera control first, NAME=VALUE, such as exposure_auto=1 or brightness=140; repeatable. `camrtp devices` lists them.",
        valueName: "name=value"))
    var controls: [String] = []

    func validate() throws {
        for control in controls {
            do {
                _ = try CameraControlSetting(parsing: control)
            } catch {
                throw ValidationError("\(error)")
            }
        }
    }

    /// The camera at `path` (the first one when nil) from `capturer`, with the position override.
    func device(_ capturer: CameraVideoCapturer, path: String?) throws -> CameraDevice? {
        try (path.map { try capturer.captureDevice(path: $0) } ?? capturer.captureDevices().first).map(positioned)
    }

    /// `device` facing where `--camera-position` says, when it says.
    func positioned(_ device: CameraDevice) -> CameraDevice {
        var device = device
        if let cameraPosition { device.position = cameraPosition }
        return device
    }

    /// Applies `--orientation` and every `--control` to `device`, checking ranges and menus.
    func configure(_ capturer: CameraVideoCapturer, device: CameraDevice) throws {
        if let orientation { capturer.deviceOrientation = orientation }
        for control in controls {
            let setting = try CameraControlSetting(parsing: control)
            try capturer.setValue(setting.value, for: setting.control, on: device)
        }
    }

    var isSet: Bool { orientation != nil || cameraPosition != nil || !controls.isEmpty }
}

extension DeviceOrientation: ExpressibleByArgument {}
extension CameraPosition: ExpressibleByArgument {}
