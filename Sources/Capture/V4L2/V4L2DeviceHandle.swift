import CV4L2
import Glibc
import SystemPackage

/// An open V4L2 node and the driver buffers mapped from it. It lives on one thread at a time;
/// `deinit` unmaps every buffer and closes the descriptor, so dropping it frees everything.
///
/// This is the one place that retries `EINTR` and turns errno values into `V4L2Error`.
final class V4L2DeviceHandle {
    /// A driver buffer mapped into this process.
    struct MappedBuffer {
        let memory: UnsafeMutableRawPointer
        let length: Int
    }

    let path: String
    private let backend: any V4L2Backend
    private let fd: Int32
    private(set) var buffers: [MappedBuffer] = []

    /// Opens `path` read-write and non-blocking: `VIDIOC_DQBUF` must return `EAGAIN`, not
    /// block, so that `poll` alone decides how long the capture thread waits.
    init(path: String, backend: any V4L2Backend) throws(V4L2Error) {
        self.path = path
        self.backend = backend
        fd = try Self.retrying(operation: "open", path: path) { () throws(Errno) in
            try backend.open(path, flags: O_RDWR | O_NONBLOCK)
        }
    }

    deinit {
        unmapBuffers()
        // close(2) is not retried on EINTR: Linux frees the descriptor either way.
        try? backend.close(fd)
    }

    /// Issues `request` with `argument`, retrying while it is interrupted.
    func ioctl<Argument>(_ request: V4L2Request, _ argument: inout Argument) throws(V4L2Error) {
        let backend = backend, fd = fd
        let result: Result<Void, V4L2Error> = withUnsafeMutablePointer(to: &argument) { pointer in
            Result { () throws(V4L2Error) in
                try Self.retrying(operation: request.name, path: path) { () throws(Errno) in
                    try backend.ioctl(fd, request: request.code, argument: UnsafeMutableRawPointer(pointer))
                }
            }
        }
        try result.get()
    }

    /// Like `ioctl`, but `EINVAL` means "no such entry" and returns false: how V4L2 ends
    /// enumerations (`VIDIOC_ENUM_*`) and answers queries for controls a driver lacks.
    func query<Argument>(_ request: V4L2Request, _ argument: inout Argument) throws(V4L2Error) -> Bool {
        do {
            try ioctl(request, &argument)
            return true
        } catch where error.code == EINVAL {
            return false
        }
    }

    /// Waits up to `timeoutMs` for a filled buffer; returns the `revents`, 0 on timeout. An
    /// interrupted wait counts as a timeout, so the caller re-checks its stop flag.
    func pollForFrame(timeoutMs: Int32) throws(V4L2Error) -> Int16 {
        do {
            return try backend.poll(fd, events: Int16(POLLIN | POLLPRI), timeoutMs: timeoutMs)
        } catch .interrupted {
            return 0
        } catch {
            throw V4L2Error(operation: "poll", path: path, code: error.rawValue)
        }
    }

    /// Asks the driver for `count` memory-mapped buffers and maps each (V4L2 uAPI "Streaming
    /// I/O (Memory Mapping)": `VIDIOC_REQBUFS`, then `VIDIOC_QUERYBUF` and `mmap` per buffer).
    /// The driver may grant a different count. Buffers start dequeued.
    func mapBuffers(count: Int) throws(V4L2Error) {
        precondition(buffers.isEmpty, "buffers are already mapped")
        var request = v4l2_requestbuffers()
        request.count = UInt32(count)
        request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        request.memory = V4L2_MEMORY_MMAP.rawValue
        try ioctl(.requestBuffers, &request)
        for index in 0..<Int(request.count) {
            var buffer = v4l2_buffer()
            buffer.index = UInt32(index)
            buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            buffer.memory = V4L2_MEMORY_MMAP.rawValue
            try ioctl(.queryBuffer, &buffer)
            let length = Int(buffer.length), offset = Int64(buffer.m.offset)
            let backend = backend, fd = fd
            let memory = try Self.retrying(operation: "mmap", path: path) { () throws(Errno) in
                try backend.mmap(fd: fd, length: length, offset: offset)
            }
            buffers.append(MappedBuffer(memory: memory, length: length))
        }
    }

    /// Unmaps every buffer and hands the memory back to the driver (`VIDIOC_REQBUFS` with a
    /// count of 0, which fails with `EBUSY` while any mapping is alive).
    func unmapBuffers() {
        guard !buffers.isEmpty else { return }
        for buffer in buffers {
            try? backend.munmap(buffer.memory, length: buffer.length)
        }
        buffers.removeAll()
        var request = v4l2_requestbuffers()
        request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        request.memory = V4L2_MEMORY_MMAP.rawValue
        _ = try? ioctl(.requestBuffers, &request)
    }

    private static func retrying<Value>(
        operation: String, path: String, _ call: () throws(Errno) -> Value
    ) throws(V4L2Error) -> Value {
        while true {
            do {
                return try call()
            } catch .interrupted {
                continue
            } catch {
                throw V4L2Error(operation: operation, path: path, code: error.rawValue)
            }
        }
    }
}
