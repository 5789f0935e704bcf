import Glibc
import MediaCore
import Synchronization

/// A camera node appearing or going away, as `AVCaptureDeviceWasConnected` and
/// `AVCaptureDeviceWasDisconnected` report.
public enum CameraDeviceEvent: Sendable, Equatable {
    case connected(path: String)
    case disconnected(path: String)
}

/// Watches a device directory with inotify for `video*` nodes coming and going. A node
/// appears before udev has set its permissions, so open a connected camera after a short
/// grace period or retry on `EACCES`.
public final class CameraDeviceMonitor: Sendable {
    /// Every arrival and removal, until `stop()`.
    public let events: AsyncStream<CameraDeviceEvent>
    /// Shared with the thread rather than `self`, so that dropping the monitor stops it.
    private let stopRequested = StopFlag()
    private let thread = Mutex<MediaThread?>(nil)

    /// Starts watching `directory` (`/dev` unless testing).
    public init(directory: String = "/dev") throws(V4L2Error) {
        let watch = try InotifyWatch(directory: directory)
        let (events, continuation) = AsyncStream.makeStream(of: CameraDeviceEvent.self)
        self.events = events
        let stopRequested = stopRequested
        thread.withLock { thread in
            thread = MediaThread(name: "camrtp.hotplug") {
                while !stopRequested.isSet {
                    for event in watch.nextEvents(timeoutMs: 100) { continuation.yield(event) }
                }
                continuation.finish()
            }
        }
    }

    deinit {
        stop()
    }

    /// Stops watching and ends `events`.
    public func stop() {
        stopRequested.set()
        let running = thread.withLock { thread in
            defer { thread = nil }
            return thread
        }
        running?.join()
    }
}

private final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)

    var isSet: Bool { value.load(ordering: .relaxed) }
    func set() { value.store(true, ordering: .relaxed) }
}

/// An inotify descriptor watching one directory; closed in `deinit`.
private final class InotifyWatch: @unchecked Sendable {
    private let fd: Int32
    private let directory: String

    init(directory: String) throws(V4L2Error) {
        self.directory = directory
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw V4L2Error(operation: "inotify_init1", path: directory, code: errno) }
        let mask = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            let code = errno
            Glibc.close(fd)
            throw V4L2Error(operation: "inotify_add_watch", path: directory, code: code)
        }
    }

    deinit {
        Glibc.close(fd)
    }

    /// The video-node events that arrive within `timeoutMs`, possibly none.
    func nextEvents(timeoutMs: Int32) -> [CameraDeviceEvent] {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard Glibc.poll(&descriptor, 1, timeoutMs) > 0 else { return [] }
        var storage = [UInt8](repeating: 0, count: 4096)
        let count = storage.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return [] }
        var events: [CameraDeviceEvent] = []
        storage.withUnsafeBytes { raw in
            var offset = 0
            // Each record is a struct inotify_event followed by `len` bytes of NUL-padded name.
            while offset + MemoryLayout<inotify_event>.size <= count {
                let header = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                let nameStart = offset + MemoryLayout<inotify_event>.size
                let nameBytes = raw[nameStart..<min(count, nameStart + Int(header.len))].prefix { $0 != 0 }
                let name = String(decoding: nameBytes, as: UTF8.self)
                offset = nameStart + Int(header.len)
                guard V4L2NodeName.index(of: name) != nil else { continue }
                let path = "\(directory)/\(name)"
                if header.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
                    events.append(.connected(path: path))
                } else if header.mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 {
                    events.append(.disconnected(path: path))
                }
            }
        }
        return events
    }
}
