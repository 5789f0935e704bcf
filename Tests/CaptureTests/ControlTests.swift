import FakeV4L2
import Capture
import CV4L2
import Foundation
import Testing

@Suite("Camera controls")
struct ControlTests {
    let camera = FakeV4L2Device()

    func capturerAndDevice() throws -> (CameraVideoCapturer, CameraDevice) {
        let capturer = CameraVideoCapturer(backend: FakeV4L2System(devices: [camera]))
        return (capturer, try #require(capturer.captureDevices().first))
    }

    @Test func listsTheControlsWithRangesMenusAndValues() throws {
        let (capturer, device) = try capturerAndDevice()
        let controls = try capturer.controls(for: device)
        // Everything but a flash LED, which webcams lack.
        #expect(controls.map(\.control) == CameraControl.allCases.filter { $0 != .flashLEDMode })
        let exposure = try #require(controls.first { $0.control == .exposureAuto })
        #expect(exposure.kind == .menu)
        #expect(exposure.menuItems.map(\.value) == [1, 3])
        #expect(exposure.value == 3)
        let focus = try #require(controls.first { $0.control == .focusAbsolute })
        #expect(focus.kind == .integer && focus.minimum == 0 && focus.maximum == 250 && focus.step == 5)
        #expect(controls.first { $0.control == .whiteBalanceAuto }?.kind == .boolean)
    }

    @Test func setsAndReadsBackValidValues() throws {
        let (capturer, device) = try capturerAndDevice()
        try capturer.setValue(1, for: .exposureAuto, on: device)
        try capturer.setValue(500, for: .exposureAbsolute, on: device)
        try capturer.setValue(0, for: .focusAuto, on: device)
        try capturer.setValue(125, for: .focusAbsolute, on: device)
        try capturer.setValue(0, for: .whiteBalanceAuto, on: device)
        try capturer.setValue(5000, for: .whiteBalanceTemperature, on: device)
        try capturer.setValue(2, for: .powerLineFrequency, on: device)
        try capturer.setValue(-10, for: .brightness, on: device)
        #expect(try capturer.value(of: .exposureAbsolute, on: device) == 500)
        #expect(try capturer.value(of: .whiteBalanceTemperature, on: device) == 5000)
        #expect(camera.controlValue(CAMRTP_V4L2_CID_FOCUS_ABSOLUTE) == 125)
        #expect(camera.controlValue(CAMRTP_V4L2_CID_BRIGHTNESS) == -10)
        #expect(camera.controlValue(CAMRTP_V4L2_CID_POWER_LINE_FREQUENCY) == 2)
    }

    @Test(arguments: [
        (CameraControl.exposureAbsolute, Int32(5000), "5000 is not a valid exposure_absolute; valid values are 3...2047 in steps of 1"),
        (.focusAbsolute, 7, "7 is not a valid focus_absolute; valid values are 0...250 in steps of 5"),
        (.exposureAuto, 2, "2 is not a valid exposure_auto; valid values are 1 (Manual Mode), 3 (Aperture Priority Mode)"),
        (.powerLineFrequency, 3, "3 is not a valid power_line_frequency; valid values are 0 (Disabled), 1 (50 Hz), 2 (60 Hz)"),
        (.focusAuto, 2, "2 is not a valid focus_auto; valid values are 0 or 1"),
    ])
    func rejectsInvalidValuesNamingTheValidOnes(control: CameraControl, value: Int32, message: String) throws {
        let (capturer, device) = try capturerAndDevice()
        let before = camera.controlValue(control.id)
        #expect {
            try capturer.setValue(value, for: control, on: device)
        } throws: { error in
            "\(error)" == "CameraControlError: \(message)"
        }
        #expect(camera.controlValue(control.id) == before)
    }

    @Test func rejectsControlsTheCameraLacks() throws {
        let isp = FakeV4L2Device(.ispCamera(path: "/dev/video0"))
        let capturer = CameraVideoCapturer(backend: FakeV4L2System(devices: [isp]))
        let device = try #require(capturer.captureDevices().first)
        #expect(try capturer.controls(for: device).isEmpty)
        #expect(throws: CameraControlError.unsupported(control: .zoomAbsolute, path: "/dev/video0")) {
            try capturer.setValue(200, for: .zoomAbsolute, on: device)
        }
    }

    @Test func changesControlsWhileCapturing() throws {
        let system = FakeV4L2System(devices: [camera])
        let (capturer, delegate) = makeCapturer(system)
        let (device, format) = try pick(capturer, .yuyv, 320, 240)
        #expect(try start(capturer, device: device, format: format, fps: 30) == nil)
        try capturer.setValue(300, for: .zoomAbsolute, on: device)
        #expect(camera.controlValue(CAMRTP_V4L2_CID_ZOOM_ABSOLUTE) == 300)
        #expect(delegate.wait { $0.frameCountTotal >= 2 })
        capturer.stopCapture()
        #expect(system.openFileCount == 0)
    }

    @Test func parsesSettings() throws {
        #expect(try CameraControlSetting(parsing: "exposure_auto=1") == CameraControlSetting(control: .exposureAuto, value: 1))
        #expect(try CameraControlSetting(parsing: "brightness=-20") == CameraControlSetting(control: .brightness, value: -20))
        for bad in ["exposure", "iso=100", "zoom_absolute=big", "=3"] {
            #expect(throws: CameraControlError.badSetting(bad)) { try CameraControlSetting(parsing: bad) }
        }
    }
}
