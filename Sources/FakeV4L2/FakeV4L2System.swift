import Capture
import Glibc
import Synchronization
import SystemPackage

/// A set of fake V4L2 devices behind the `V4L2Backend` seam: it hands out descriptors, routes
/// each call to its device, and can plug and unplug devices at run time.
public final class FakeV4L2System: V4L2Backend {
    private struct State {
        /// Every device ever added, so that mappings of unplugged ones are still counted.
        var devices: [FakeV4L2Device] = []
        var pluggedPaths: Set<String> = []
        var files: [Int32: FakeV4L2Device] = [:]
        var nextFD: Int32 = 100
    }

    private let state = Mutex(State())

    public init(devices: [FakeV4L2Device] = [FakeV4L2Device()]) {
        devices.forEach(plug)
    }

    /// Adds a device, as a camera appearing on the bus.
    public func plug(_ device: FakeV4L2Device) {
        state.withLock { state in
            state.devices.append(device)
            state.pluggedPaths.insert(device.configuration.path)
        }
    }

    /// Removes the device at `path`: its node disappears and its open files see `ENODEV`.
    public func unplug(path: String) {
        let device = state.withLock { state in
            state.pluggedPaths.remove(path)
            return state.devices.last { $0.configuration.path == path }
        }
        device?.unplug()
    }

    /// Descriptors open across all devices.
    public var openFileCount: Int { state.withLock { $0.files.count } }
    /// Buffer mappings alive across all devices, plugged or not.
    public var liveMappingCount: Int { state.withLock { $0.devices }.reduce(0) { $0 + $1.liveMappingCount } }

    public func videoNodePaths() -> [String] {
        state.withLock { Array($0.pluggedPaths) }
    }

    public func persistentName(ofNode path: String) -> String? {
        device(at: path)?.configuration.persistentName
    }

    public func open(_ path: String, flags: Int32) throws(Errno) -> Int32 {
        guard let device = device(at: path) else { throw Errno(rawValue: ENOENT) }
        let fd = state.withLock { state in
            defer { state.nextFD += 1 }
            return state.nextFD
        }
        try device.open(fd: fd)
        state.withLock { $0.files[fd] = device }
        return fd
    }

    public func close(_ fd: Int32) throws(Errno) {
        guard let device = state.withLock({ $0.files.removeValue(forKey: fd) }) else { throw Errno(rawValue: EBADF) }
        device.close(fd: fd)
    }

    public func ioctl(_ fd: Int32, request: UInt, argument: UnsafeMutableRawPointer) throws(Errno) {
        try file(fd).ioctl(fd: fd, request: request, argument: argument)
    }

    public func mmap(fd: Int32, length: Int, offset: Int64) throws(Errno) -> UnsafeMutableRawPointer {
        try file(fd).mmap(fd: fd, length: length, offset: offset)
    }

    public func munmap(_ address: UnsafeMutableRawPointer, length: Int) throws(Errno) {
        guard state.withLock({ $0.devices }).contains(where: { $0.munmap(address) }) else { throw Errno(rawValue: EINVAL) }
    }

    public func poll(_ fd: Int32, events: Int16, timeoutMs: Int32) throws(Errno) -> Int16 {
        try file(fd).poll(fd: fd, events: events, timeoutMs: timeoutMs)
    }

    /// The device plugged in at `path`, to inject a fault into or look at.
    public func device(at path: String) -> FakeV4L2Device? {
        state.withLock { state in
            state.pluggedPaths.contains(path) ? state.devices.last { $0.configuration.path == path } : nil
        }
    }

    private func file(_ fd: Int32) throws(Errno) -> FakeV4L2Device {
        guard let device = state.withLock({ $0.files[fd] }) else { throw Errno(rawValue: EBADF) }
        return device
    }
}
