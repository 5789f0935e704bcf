import FakeV4L2
import Capture
import Foundation
import MediaCore
import Testing

@Suite("Device discovery, formats and selection")
struct DiscoveryAndFormatTests {
    let webcam = FakeV4L2Device(FakeV4L2Configuration(path: "/dev/video10", card: "USB Webcam", persistentName: "usb-Acme_Webcam_123-video-index0"))
    let isp = FakeV4L2Device(.ispCamera(path: "/dev/video2"))
    let metadata = FakeV4L2Device(FakeV4L2Configuration(path: "/dev/video11", kind: .metadataCapture))
    let codec = FakeV4L2Device(FakeV4L2Configuration(path: "/dev/video0", kind: .memoryToMemory))

    @Test func keepsCamerasInNodeOrderAndSkipsOtherNodes() {
        let capturer = CameraVideoCapturer(backend: FakeV4L2System(devices: [webcam, metadata, codec, isp]))
        let devices = capturer.captureDevices()
        #expect(devices.map(\.path) == ["/dev/video2", "/dev/video10"])
        #expect(devices[1].uniqueID == "usb-Acme_Webcam_123-video-index0")
        #expect(devices[1].name == "USB Webcam")
        #expect(devices[1].driver == "camrtp-fake")
        #expect(devices[1].position == .external)
        #expect(devices[1].sensorRotation == .deg0)
        // Without a by-id link the bus address identifies the device.
        #expect(devices[0].uniqueID == "platform:camrtp-isp")
        #expect(devices[0].position == .back)
        // The kernel states 270° counter-clockwise, which is 90° clockwise.
        #expect(devices[0].sensorRotation == .deg90)
    }

    @Test func looksUpACameraByPathAndRefusesOtherNodes() throws {
        let system = FakeV4L2System(devices: [webcam, metadata])
        let capturer = CameraVideoCapturer(backend: system)
        #expect(try capturer.captureDevice(path: "/dev/video10").name == "USB Webcam")
        #expect(throws: CameraCaptureError.notACamera(path: "/dev/video11")) {
            try capturer.captureDevice(path: "/dev/video11")
        }
        #expect(throws: V4L2Error(operation: "open", path: "/dev/video5", code: ENOENT)) {
            try capturer.captureDevice(path: "/dev/video5")
        }
        // Starting a node that is no camera fails cleanly too.
        let notACamera = CameraDevice(uniqueID: "meta", name: "meta", driver: "uvcvideo", busInfo: "", path: "/dev/video11")
        let format = CameraFormat(pixelFormat: .yuyv, width: 640, height: 480, frameRateRanges: [])
        #expect(try start(capturer, device: notACamera, format: format, fps: 30) as? CameraCaptureError == .notACamera(path: "/dev/video11"))
        capturer.stopCapture()
        #expect(system.openFileCount == 0)
    }

    @Test func reportsNodesItCannotOpenWithTheFix() {
        webcam.failOpens(with: EACCES)
        let discovery = CameraVideoCapturer(backend: FakeV4L2System(devices: [webcam, isp])).discoverDevices()
        #expect(discovery.devices.map(\.path) == ["/dev/video2"])
        #expect(discovery.failures.map(\.code) == [EACCES])
        let message = discovery.failures.first?.description ?? ""
        #expect(message.hasPrefix("V4L2Error: open on /dev/video10 failed: Permission denied (errno 13)"))
        #expect(message.contains("sudo usermod -aG video $USER"))
        #expect(message.contains("log out and in again"))
    }

    @Test func enumeratesDiscreteFormatsWithBusLimitedRatesNativeFirst() throws {
        let capturer = CameraVideoCapturer(backend: FakeV4L2System(devices: [webcam]))
        let device = try #require(capturer.captureDevices().first)
        let formats = try capturer.supportedFormats(for: device)
        let summaries = formats.map(\.summary)
        #expect(summaries == [
            "YUYV 640x480 @ 30, 15, 10, 5 fps", "YUYV 320x240 @ 30, 15, 10, 5 fps", "YUYV 1280x720 @ 10, 5 fps",
            "MJPG 640x480 @ 30, 15 fps", "MJPG 1280x720 @ 30, 15 fps",
            "YU12 640x480 @ 30, 15, 10, 5 fps (emulated)", "YU12 320x240 @ 30, 15, 10, 5 fps (emulated)",
            "YU12 1280x720 @ 15, 10, 5 fps (emulated)",
        ])
    }

    @Test func mapsStepwiseSizesToCommonOnesAndContinuousRatesToARange() throws {
        let capturer = CameraVideoCapturer(backend: FakeV4L2System(devices: [isp]))
        let device = try #require(capturer.captureDevices().first)
        let formats = try capturer.supportedFormats(for: device)
        let nv12 = formats.filter { $0.pixelFormat == .nv12 }
        // 64..1920 × 64..1080 in steps of 16 × 8: 960x540 is off the grid.
        #expect(nv12.map { "\($0.width)x\($0.height)" } == [
            "160x120", "176x144", "320x240", "352x288", "640x360", "640x480", "800x600", "1024x768", "1280x720", "1280x960",
            "1920x1080",
        ])
        #expect(nv12.allSatisfy { $0.frameRateRanges == [FrameRateRange(minFPS: 1, maxFPS: 60)] })
        let nv21 = formats.filter { $0.pixelFormat == .nv21 }
        #expect(nv21.contains { $0.width == 960 && $0.height == 540 })
        #expect(nv21.count == 12)
    }

    @Test func picksTheClosestSizeAndPrefersMJPEGAboveVGAWhenRawIsTooSlow() throws {
        let capturer = CameraVideoCapturer(backend: FakeV4L2System(devices: [webcam]))
        let formats = try capturer.supportedFormats(for: try #require(capturer.captureDevices().first))
        let hd = try #require(CameraFormatSelection.closestFormat(in: formats, width: 1280, height: 720))
        #expect(hd.pixelFormat == .mjpeg)
        // Asking for no more than raw reaches keeps the cheaper raw format.
        let slowHD = try #require(CameraFormatSelection.closestFormat(in: formats, width: 1280, height: 720, frameRate: 10))
        #expect(slowHD.pixelFormat == .yuyv)
        // At VGA raw wins, and the native YUYV beats the emulated YU12 that ranks higher by cost.
        let vga = try #require(CameraFormatSelection.closestFormat(in: formats, width: 640, height: 480))
        #expect(vga.pixelFormat == .yuyv && vga.width == 640)
        // Nearest by |Δw| + |Δh|.
        let odd = try #require(CameraFormatSelection.closestFormat(in: formats, width: 300, height: 200))
        #expect(odd.width == 320 && odd.height == 240)
        // On a tie the preference order decides.
        let preferMJPEG = try #require(CameraFormatSelection.closestFormat(
            in: formats, width: 640, height: 480, preference: [.mjpeg, .yuyv]))
        #expect(preferMJPEG.pixelFormat == .mjpeg)
        #expect(CameraFormatSelection.closestFormat(in: [], width: 640, height: 480) == nil)
    }

    @Test func picksTheRateAsTheLowestOfFormatMaximumLimitAndThirty() {
        let fast = CameraFormat(pixelFormat: .nv12, width: 640, height: 480, frameRateRanges: [FrameRateRange(minFPS: 1, maxFPS: 60)])
        let slow = CameraFormat(pixelFormat: .yuyv, width: 1280, height: 720, frameRateRanges: [FrameRateRange(minFPS: 10, maxFPS: 10)])
        let unknown = CameraFormat(pixelFormat: .yuyv, width: 640, height: 480, frameRateRanges: [])
        #expect(CameraFormatSelection.frameRate(for: fast) == 30)
        #expect(CameraFormatSelection.frameRate(for: fast, limit: 60) == 60)
        #expect(CameraFormatSelection.frameRate(for: fast, limit: 15) == 15)
        #expect(CameraFormatSelection.frameRate(for: slow) == 10)
        #expect(CameraFormatSelection.frameRate(for: unknown) == 30)
    }

    @Test func reportsCamerasAsTextAndJSON() throws {
        let report = CameraDeviceReport(capturer: CameraVideoCapturer(backend: FakeV4L2System(devices: [isp])))
        #expect(report.cameras.count == 1)
        #expect(report.text.contains("camrtp fake ISP — /dev/video2"))
        #expect(report.text.contains("NV12 1280x720 @ 1-60 fps"))
        #expect(report.text.contains("position: back, sensor rotation: 90°"))
        let decoded = try JSONDecoder().decode(CameraDeviceReport.self, from: Data(try report.json().utf8))
        #expect(decoded == report)

        let webcamReport = CameraDeviceReport(capturer: CameraVideoCapturer(backend: FakeV4L2System(devices: [webcam])))
        #expect(webcamReport.text.contains("exposure_auto = 3 (1 (Manual Mode), 3 (Aperture Priority Mode), default 3)"))
    }

    @Test func saysSoWhenThereIsNoCamera() {
        let report = CameraDeviceReport(capturer: CameraVideoCapturer(backend: FakeV4L2System(devices: [metadata])))
        #expect(report.cameras.isEmpty)
        #expect(report.text == "No cameras found.")
    }
}
