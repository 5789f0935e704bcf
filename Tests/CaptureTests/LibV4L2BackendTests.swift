import Capture
import Foundation
import Testing

/// The real backend, on what this machine has: no camera, so nodes that are not devices.
@Suite("libv4l2 backend without hardware")
struct LibV4L2BackendTests {
    @Test func findsNoCameraInAnEmptyDirectory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("camrtp-dev-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let capturer = CameraVideoCapturer(backend: LibV4L2Backend(deviceDirectory: directory))
        #expect(capturer.captureDevices().isEmpty)
        #expect(CameraDeviceReport(capturer: capturer).text == "No cameras found.")
    }

    @Test func reportsTheErrnoOfANodeThatIsNoDevice() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("camrtp-dev-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(FileManager.default.createFile(atPath: "\(directory)/video0", contents: Data([0])))
        #expect(FileManager.default.createFile(atPath: "\(directory)/vbi0", contents: nil))
        let discovery = CameraVideoCapturer(backend: LibV4L2Backend(deviceDirectory: directory)).discoverDevices()
        #expect(discovery.devices.isEmpty)
        let failure = try #require(discovery.failures.first)
        #expect(discovery.failures.count == 1)
        // v4l2_open queries the node itself and refuses one that does not answer VIDIOC_QUERYCAP.
        #expect(failure.operation == "open")
        #expect(failure.code == ENOTTY)
        #expect(failure.description == "V4L2Error: open on \(directory)/video0 failed: Inappropriate ioctl for device (errno 25)")
    }
}
