import FakeV4L2
import CameraRTP
import Capture
import Foundation
import TestSupport
import Testing
@testable import CamrtpCLI

@Suite struct SnapshotCommandTests {
    /// A camera that another program streams from is the user's to free: one line, exit code 2.
    @Test func aBusyCameraIsBadUsageInOneLine() async throws {
        let folder = TemporaryDirectory()
        let fake = try FakeCamera(spec: FakeCameraSpec(pixelFormat: .yuyv))
        let holder = CameraVideoCapturer(backend: fake.system)
        try await holder.startCapture(device: fake.device, format: fake.format, fps: fake.fps)
        let source = try CaptureSource.camera(fake.capturer, device: fake.device, size: (640, 480), fpsLimit: 30)
        let command = try SnapshotCommand.parse(["--source", "fake-camera", "--out", folder.file("x.jpg")])
        await #expect {
            try await command.takeSnapshot(from: source, format: .jpeg)
        } throws: { error in
            guard let error = error as? CLIError else { return false }
            return error.kind == .usage && error.message
                == "V4L2Error: VIDIOC_S_FMT on /dev/video0 failed: Device or resource busy (errno 16). Another program is using the camera."
        }
        await holder.stopCapture()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
}
