import CV4L2

/// The camera settings users reach for, by V4L2 control id (V4L2 uAPI "User Controls",
/// "Camera Control Reference" and "Flash Control Reference"): the Linux counterparts of
/// AVCaptureDevice focus, exposure, white balance, zoom and torch.
public enum CameraControl: String, Sendable, CaseIterable, Codable {
    /// Menu: 0 auto, 1 manual, 2 shutter priority, 3 aperture priority (`V4L2_CID_EXPOSURE_AUTO`).
    case exposureAuto = "exposure_auto"
    /// Exposure time in 100 µs units.
    case exposureAbsolute = "exposure_absolute"
    case focusAuto = "focus_auto"
    case focusAbsolute = "focus_absolute"
    case whiteBalanceAuto = "white_balance_auto"
    /// Colour temperature in kelvin.
    case whiteBalanceTemperature = "white_balance_temperature"
    case zoomAbsolute = "zoom_absolute"
    case brightness
    case contrast
    case saturation
    case sharpness
    /// Menu: 0 disabled, 1 50 Hz, 2 60 Hz, 3 auto, against mains flicker.
    case powerLineFrequency = "power_line_frequency"
    /// Menu: 0 off, 1 flash, 2 torch (`V4L2_CID_FLASH_LED_MODE`), on nodes with a flash LED.
    case flashLEDMode = "flash_led_mode"

    /// A control by our name or by the one current kernels give it (`v4l2-ctl --list-ctrls`
    /// prints `auto_exposure` and `exposure_time_absolute` where older ones said
    /// `exposure_auto` and `exposure_absolute`).
    public init?(name: String) {
        let kernelNames: [String: CameraControl] = [
            "auto_exposure": .exposureAuto, "exposure_time_absolute": .exposureAbsolute,
            "focus_automatic_continuous": .focusAuto, "white_balance_automatic": .whiteBalanceAuto,
        ]
        guard let control = CameraControl(rawValue: name) ?? kernelNames[name] else { return nil }
        self = control
    }

    public var id: UInt32 {
        switch self {
        case .exposureAuto: CAMRTP_V4L2_CID_EXPOSURE_AUTO
        case .exposureAbsolute: CAMRTP_V4L2_CID_EXPOSURE_ABSOLUTE
        case .focusAuto: CAMRTP_V4L2_CID_FOCUS_AUTO
        case .focusAbsolute: CAMRTP_V4L2_CID_FOCUS_ABSOLUTE
        case .whiteBalanceAuto: CAMRTP_V4L2_CID_AUTO_WHITE_BALANCE
        case .whiteBalanceTemperature: CAMRTP_V4L2_CID_WHITE_BALANCE_TEMPERATURE
        case .zoomAbsolute: CAMRTP_V4L2_CID_ZOOM_ABSOLUTE
        case .brightness: CAMRTP_V4L2_CID_BRIGHTNESS
        case .contrast: CAMRTP_V4L2_CID_CONTRAST
        case .saturation: CAMRTP_V4L2_CID_SATURATION
        case .sharpness: CAMRTP_V4L2_CID_SHARPNESS
        case .powerLineFrequency: CAMRTP_V4L2_CID_POWER_LINE_FREQUENCY
        case .flashLEDMode: CAMRTP_V4L2_CID_FLASH_LED_MODE
        }
    }
}

/// What a camera says about one control (`VIDIOC_QUERYCTRL`, `VIDIOC_QUERYMENU`, `VIDIOC_G_CTRL`).
public struct CameraControlInfo: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable {
        case integer, boolean, menu
    }

    public struct MenuItem: Sendable, Equatable, Codable {
        public var value: Int32
        public var name: String
    }

    public var control: CameraControl
    /// The driver's name for it, such as "Exposure, Auto".
    public var driverName: String
    public var kind: Kind
    public var minimum: Int32
    public var maximum: Int32
    public var step: Int32
    public var defaultValue: Int32
    /// nil for a write-only control.
    public var value: Int32?
    /// The valid entries of a menu, which may skip values.
    public var menuItems: [MenuItem]
    public var isReadOnly: Bool
    /// Another setting overrides it for now, such as exposure time under auto exposure.
    public var isInactive: Bool

    /// The valid values in words: `3...2047 in steps of 1`, or a menu's `1 (Manual), 3 (Aperture Priority)`.
    public var validValues: String {
        switch kind {
        case .menu: menuItems.map { "\($0.value) (\($0.name))" }.joined(separator: ", ")
        case .boolean: "0 or 1"
        case .integer: "\(minimum)...\(maximum) in steps of \(step)"
        }
    }

    /// Whether the driver would take `value` as it is.
    public func accepts(_ value: Int32) -> Bool {
        switch kind {
        case .menu: menuItems.contains { $0.value == value }
        case .boolean: value == 0 || value == 1
        case .integer: (minimum...maximum).contains(value) && (Int64(value) - Int64(minimum)) % Int64(max(1, step)) == 0
        }
    }
}

/// A control that cannot be set as asked.
public enum CameraControlError: Error, CustomStringConvertible, Sendable, Equatable {
    case unsupported(control: CameraControl, path: String)
    case readOnly(control: CameraControl, path: String)
    case invalidValue(control: CameraControl, value: Int32, validValues: String)
    /// A `NAME=VALUE` setting that does not parse.
    case badSetting(String)

    public var description: String {
        switch self {
        case .unsupported(let control, let path):
            "CameraControlError: \(path) has no \(control.rawValue) control"
        case .readOnly(let control, let path):
            "CameraControlError: \(control.rawValue) on \(path) is read-only"
        case .invalidValue(let control, let value, let validValues):
            "CameraControlError: \(value) is not a valid \(control.rawValue); valid values are \(validValues)"
        case .badSetting(let text):
            "CameraControlError: '\(text)' is not NAME=VALUE with NAME one of \(CameraControl.allCases.map(\.rawValue).joined(separator: ", ")) and an integer VALUE, or torch=on|off"
        }
    }
}

/// A control and the value to give it, parsed from `NAME=VALUE` such as `exposure_auto=1`;
/// `torch=on` and `torch=off` stand for `flash_led_mode=2` and `flash_led_mode=0`.
public struct CameraControlSetting: Sendable, Equatable {
    public var control: CameraControl
    public var value: Int32

    public init(control: CameraControl, value: Int32) {
        self.control = control
        self.value = value
    }

    public init(parsing text: String) throws(CameraControlError) {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { throw .badSetting(text) }
        if parts[0] == "torch", let on = ["on": true, "off": false][parts[1]] {
            self.init(control: .flashLEDMode, value: on ? Self.flashLEDTorch : Self.flashLEDOff)
            return
        }
        guard let control = CameraControl(name: parts[0]), let value = Int32(parts[1]) else { throw .badSetting(text) }
        self.init(control: control, value: value)
    }

    static let flashLEDOff = Int32(V4L2_FLASH_LED_MODE_NONE.rawValue)
    static let flashLEDTorch = Int32(V4L2_FLASH_LED_MODE_TORCH.rawValue)
}

extension V4L2DeviceHandle {
    /// Everything the driver says about `control`, or nil when it lacks it or has it disabled.
    func controlInfo(_ control: CameraControl) throws(V4L2Error) -> CameraControlInfo? {
        var query = v4l2_queryctrl()
        query.id = control.id
        guard try self.query(.queryControl, &query), query.flags & UInt32(V4L2_CTRL_FLAG_DISABLED) == 0 else { return nil }
        let kind: CameraControlInfo.Kind
        switch query.type {
        case V4L2_CTRL_TYPE_BOOLEAN.rawValue: kind = .boolean
        case V4L2_CTRL_TYPE_MENU.rawValue: kind = .menu
        case V4L2_CTRL_TYPE_INTEGER.rawValue: kind = .integer
        default: return nil
        }
        var items: [CameraControlInfo.MenuItem] = []
        if kind == .menu {
            for index in query.minimum...query.maximum {
                var entry = v4l2_querymenu()
                entry.id = control.id
                entry.index = UInt32(index)
                // Drivers may leave gaps in a menu; those indexes answer EINVAL.
                if try self.query(.queryMenu, &entry) {
                    items.append(.init(value: index, name: CString.decode(entry.name)))
                }
            }
        }
        let isWriteOnly = query.flags & UInt32(V4L2_CTRL_FLAG_WRITE_ONLY) != 0
        return CameraControlInfo(
            control: control, driverName: CString.decode(query.name), kind: kind,
            minimum: query.minimum, maximum: query.maximum, step: query.step, defaultValue: query.default_value,
            value: isWriteOnly ? nil : try controlValue(control.id), menuItems: items,
            isReadOnly: query.flags & UInt32(V4L2_CTRL_FLAG_READ_ONLY) != 0,
            isInactive: query.flags & UInt32(V4L2_CTRL_FLAG_INACTIVE) != 0)
    }

    /// Sets `control` after checking the value against the driver's range, step or menu, as the
    /// kernel would otherwise clamp an integer silently.
    func setControl(_ control: CameraControl, to value: Int32) throws {
        guard let info = try controlInfo(control) else { throw CameraControlError.unsupported(control: control, path: path) }
        guard !info.isReadOnly else { throw CameraControlError.readOnly(control: control, path: path) }
        guard info.accepts(value) else {
            throw CameraControlError.invalidValue(control: control, value: value, validValues: info.validValues)
        }
        var argument = v4l2_control(id: control.id, value: value)
        try ioctl(.setControl, &argument)
    }
}

extension CameraVideoCapturer {
    /// The listed controls the camera has, with their ranges and current values. Controls work
    /// while capturing: V4L2 lets a second open of the node change them.
    public func controls(for device: CameraDevice) throws(V4L2Error) -> [CameraControlInfo] {
        let handle = try V4L2DeviceHandle(path: device.path, backend: backend)
        var infos: [CameraControlInfo] = []
        for control in CameraControl.allCases {
            if let info = try handle.controlInfo(control) { infos.append(info) }
        }
        return infos
    }

    /// The current value of `control`.
    public func value(of control: CameraControl, on device: CameraDevice) throws -> Int32 {
        let handle = try V4L2DeviceHandle(path: device.path, backend: backend)
        guard let value = try handle.controlValue(control.id) else {
            throw CameraControlError.unsupported(control: control, path: device.path)
        }
        return value
    }

    /// Sets `control`, rejecting a value outside its range, off its step or not in its menu
    /// with an error that names the valid values.
    public func setValue(_ value: Int32, for control: CameraControl, on device: CameraDevice) throws {
        try V4L2DeviceHandle(path: device.path, backend: backend).setControl(control, to: value)
    }
}
