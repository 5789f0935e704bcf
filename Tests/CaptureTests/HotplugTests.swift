import FakeV4L2
import Capture
import Foundation
import Testing

@Suite("Hotplug")
struct HotplugTests {
    @Test func reportsVideoNodesComingAndGoing() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("camrtp-hotplug-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let monitor = try CameraDeviceMonitor(directory: directory)
        defer { monitor.stop() }
        #expect(FileManager.default.createFile(atPath: "\(directory)/video7", contents: nil))
        #expect(FileManager.default.createFile(atPath: "\(directory)/media0", contents: nil))
        try FileManager.default.removeItem(atPath: "\(directory)/video7")

        let collected = Task {
            var events: [CameraDeviceEvent] = []
            for await event in monitor.events {
                events.append(event)
                if events.count == 2 { break }
            }
            return events
        }
        let timeout = Task {
            try await Task.sleep(for: .seconds(5))
            monitor.stop()
        }
        let events = await collected.value
        timeout.cancel()
        #expect(events == [.connected(path: "\(directory)/video7"), .disconnected(path: "\(directory)/video7")])
    }

    @Test func failsClearlyForAMissingDirectory() {
        #expect(throws: V4L2Error(operation: "inotify_add_watch", path: "/nonexistent-camrtp", code: ENOENT)) {
            try CameraDeviceMonitor(directory: "/nonexistent-camrtp")
        }
    }

    @Test func fakeSystemPlugsAndUnplugsCameras() {
        let system = FakeV4L2System(devices: [])
        let capturer = CameraVideoCapturer(backend: system)
        #expect(capturer.captureDevices().isEmpty)
        system.plug(FakeV4L2Device(FakeV4L2Configuration(path: "/dev/video3")))
        #expect(capturer.captureDevices().map(\.path) == ["/dev/video3"])
        system.unplug(path: "/dev/video3")
        #expect(capturer.captureDevices().isEmpty)
    }
}
