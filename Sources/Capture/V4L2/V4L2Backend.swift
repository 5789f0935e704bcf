import CV4L2
import FoundationEssentials
import Glibc
import SystemPackage

/// Every call camrtp makes to a V4L2 device, and nothing else: the one seam between the capturer
/// and the kernel, as Chromium's `V4L2CaptureDevice` is. `LibV4L2Backend` goes through libv4l2;
/// `FakeV4L2System` implements the same contract in memory for tests and `fake-camera`.
///
/// Calls report failure by throwing the `Errno` they failed with and never retry; retrying on
/// `EINTR` and turning codes into `V4L2Error` happen in one place, `V4L2DeviceHandle`.
public protocol V4L2Backend: Sendable {
    /// The `/dev/video*` nodes there are now, in any order.
    func videoNodePaths() -> [String]
    /// A name for the node that survives replugging and reboots (its `/dev/v4l/by-id` link).
    func persistentName(ofNode path: String) -> String?
    /// `open(2)`; returns the file descriptor.
    func open(_ path: String, flags: Int32) throws(Errno) -> Int32
    func close(_ fd: Int32) throws(Errno)
    /// `ioctl(2)` with a pointer to the request's argument struct.
    func ioctl(_ fd: Int32, request: UInt, argument: UnsafeMutableRawPointer) throws(Errno)
    /// `mmap(2)` of a driver buffer, shared and readable/writable, at the offset `VIDIOC_QUERYBUF` gave.
    func mmap(fd: Int32, length: Int, offset: Int64) throws(Errno) -> UnsafeMutableRawPointer
    func munmap(_ address: UnsafeMutableRawPointer, length: Int) throws(Errno)
    /// `poll(2)` on one descriptor; returns the `revents`, 0 when the timeout passed.
    func poll(_ fd: Int32, events: Int16, timeoutMs: Int32) throws(Errno) -> Int16
}

/// The real devices, through libv4l2, which converts formats the camera lacks
/// (`V4L2_FMT_FLAG_EMULATED`) and is single-planar only.
public struct LibV4L2Backend: V4L2Backend {
    public let deviceDirectory: String

    public init(deviceDirectory: String = "/dev") {
        self.deviceDirectory = deviceDirectory
    }

    public func videoNodePaths() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: deviceDirectory)) ?? []
        return names.filter { V4L2NodeName.index(of: $0) != nil }.map { "\(deviceDirectory)/\($0)" }
    }

    public func persistentName(ofNode path: String) -> String? {
        let byID = "\(deviceDirectory)/v4l/by-id"
        let links = (try? FileManager.default.contentsOfDirectory(atPath: byID)) ?? []
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        return links.sorted().first { link in
            URL(fileURLWithPath: "\(byID)/\(link)").resolvingSymlinksInPath().path == target
        }
    }

    public func open(_ path: String, flags: Int32) throws(Errno) -> Int32 {
        let fd = camrtp_v4l2_open(path, flags)
        guard fd >= 0 else { throw Errno(rawValue: errno) }
        return fd
    }

    public func close(_ fd: Int32) throws(Errno) {
        guard camrtp_v4l2_close(fd) == 0 else { throw Errno(rawValue: errno) }
    }

    public func ioctl(_ fd: Int32, request: UInt, argument: UnsafeMutableRawPointer) throws(Errno) {
        guard camrtp_v4l2_ioctl(fd, request, argument) == 0 else { throw Errno(rawValue: errno) }
    }

    public func mmap(fd: Int32, length: Int, offset: Int64) throws(Errno) -> UnsafeMutableRawPointer {
        let address = camrtp_v4l2_mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset)
        guard let address, address != camrtp_map_failed() else { throw Errno(rawValue: errno) }
        return address
    }

    public func munmap(_ address: UnsafeMutableRawPointer, length: Int) throws(Errno) {
        guard camrtp_v4l2_munmap(address, length) == 0 else { throw Errno(rawValue: errno) }
    }

    public func poll(_ fd: Int32, events: Int16, timeoutMs: Int32) throws(Errno) -> Int16 {
        var descriptor = pollfd(fd: fd, events: events, revents: 0)
        let ready = Glibc.poll(&descriptor, 1, timeoutMs)
        guard ready >= 0 else { throw Errno(rawValue: errno) }
        return ready == 0 ? 0 : descriptor.revents
    }
}

/// Names of V4L2 video nodes: `video` followed by a number.
enum V4L2NodeName {
    static func index(of name: String) -> Int? {
        guard name.hasPrefix("video") else { return nil }
        return Int(name.dropFirst(5))
    }

    /// Orders paths by node number (`video2` before `video10`), which is stable across runs.
    static func sorted(_ paths: [String]) -> [String] {
        paths.sorted { lhs, rhs in
            let left = index(of: URL(fileURLWithPath: lhs).lastPathComponent) ?? .max
            let right = index(of: URL(fileURLWithPath: rhs).lastPathComponent) ?? .max
            return left != right ? left < right : lhs < rhs
        }
    }
}
