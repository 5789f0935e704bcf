import FakeV4L2
import Capture
import CV4L2
import Foundation
import MediaCore
import Testing
import SystemPackage

/// The fake must refuse what the kernel refuses, or the capturer could pass tests it would fail
/// on a real camera.
@Suite("Fake device keeps the V4L2 contract")
struct FakeDeviceContractTests {
    let camera = FakeV4L2Device()
    var system: FakeV4L2System { FakeV4L2System(devices: [camera]) }

    func call<Argument>(_ system: FakeV4L2System, _ fd: Int32, _ request: V4L2Request, _ argument: inout Argument) -> Int32 {
        withUnsafeMutablePointer(to: &argument) { pointer in
            let result = Result { () throws(Errno) in
                try system.ioctl(fd, request: request.code, argument: UnsafeMutableRawPointer(pointer))
            }
            if case .failure(let error) = result { return error.rawValue }
            return 0
        }
    }

    func buffers(count: UInt32) -> v4l2_requestbuffers {
        var request = v4l2_requestbuffers()
        request.count = count
        request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        request.memory = V4L2_MEMORY_MMAP.rawValue
        return request
    }

    func buffer(_ index: UInt32) -> v4l2_buffer {
        var buffer = v4l2_buffer()
        buffer.index = index
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        return buffer
    }

    @Test func adjustsTheFormatInsteadOfFailing() throws {
        let system = system
        let fd = try system.open("/dev/video0", flags: O_RDWR | O_NONBLOCK)
        var format = v4l2_format()
        format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        format.fmt.pix.width = 1000
        format.fmt.pix.height = 700
        format.fmt.pix.pixelformat = FourCC.make("H264")
        #expect(call(system, fd, .setFormat, &format) == 0)
        #expect(format.fmt.pix.pixelformat == PixelFormat.yuyv.fourcc)
        #expect(format.fmt.pix.width == 1280 && format.fmt.pix.height == 720)
        #expect(format.fmt.pix.bytesperline == 2560)
        try system.close(fd)
    }

    @Test func guardsBuffersThatAreMappedOrOwnedByAnotherFile() throws {
        let system = system
        let owner = try system.open("/dev/video0", flags: O_RDWR | O_NONBLOCK)
        let other = try system.open("/dev/video0", flags: O_RDWR | O_NONBLOCK)
        var request = buffers(count: 4)
        #expect(call(system, owner, .requestBuffers, &request) == 0)
        #expect(request.count == 4)
        var query = buffer(0)
        #expect(call(system, owner, .queryBuffer, &query) == 0)
        let memory = try system.mmap(fd: owner, length: Int(query.length), offset: Int64(query.m.offset))
        // Real memory: writable and readable.
        memory.storeBytes(of: 0xAB, as: UInt8.self)
        #expect(memory.load(as: UInt8.self) == 0xAB)

        var format = v4l2_format()
        format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        #expect(call(system, other, .setFormat, &format) == EBUSY)
        var otherRequest = buffers(count: 2)
        #expect(call(system, other, .requestBuffers, &otherRequest) == EBUSY)
        var free = buffers(count: 0)
        #expect(call(system, owner, .requestBuffers, &free) == EBUSY)
        try system.munmap(memory, length: Int(query.length))
        #expect(call(system, owner, .requestBuffers, &free) == 0)
        #expect(camera.allocatedBufferCount == 0)
        try system.close(owner)
        try system.close(other)
        #expect(system.openFileCount == 0)
        #expect(throws: Errno(rawValue: EBADF)) { try system.close(owner) }
    }

    @Test func streamsFramesWithSequenceNumbersFlagsAndMonotonicTimestamps() throws {
        let system = system
        let fd = try system.open("/dev/video0", flags: O_RDWR | O_NONBLOCK)
        var request = buffers(count: 2)
        #expect(call(system, fd, .requestBuffers, &request) == 0)
        var dequeued = buffer(0)
        #expect(call(system, fd, .dequeueBuffer, &dequeued) == EINVAL)
        #expect(try system.poll(fd, events: Int16(POLLIN), timeoutMs: 0) == Int16(POLLERR))
        for index in 0..<2 {
            var queued = buffer(UInt32(index))
            #expect(call(system, fd, .queueBuffer, &queued) == 0)
        }
        var again = buffer(0)
        #expect(call(system, fd, .queueBuffer, &again) == EINVAL)
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        #expect(call(system, fd, .streamOn, &type) == 0)
        #expect(call(system, fd, .dequeueBuffer, &dequeued) == EAGAIN)

        var sequences: [UInt32] = []
        var timestamps: [Int64] = []
        for _ in 0..<4 {
            #expect(try system.poll(fd, events: Int16(POLLIN), timeoutMs: 1000) & Int16(POLLIN) != 0)
            var filled = buffer(0)
            #expect(call(system, fd, .dequeueBuffer, &filled) == 0)
            #expect(filled.flags & UInt32(V4L2_BUF_FLAG_TIMESTAMP_MASK) == UInt32(V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC))
            #expect(filled.flags & UInt32(V4L2_BUF_FLAG_ERROR) == 0)
            #expect(Int(filled.bytesused) == 640 * 480 * 2)
            sequences.append(filled.sequence)
            timestamps.append(Int64(filled.timestamp.tv_sec) * 1_000_000_000 + Int64(filled.timestamp.tv_usec) * 1_000)
            var requeue = buffer(filled.index)
            #expect(call(system, fd, .queueBuffer, &requeue) == 0)
        }
        #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $0 < $1 })
        #expect(zip(timestamps, timestamps.dropFirst()).allSatisfy { $0 < $1 })
        #expect(timestamps.allSatisfy { $0 <= MonotonicClock.nowNs() })

        camera.unplug()
        #expect(try system.poll(fd, events: Int16(POLLIN), timeoutMs: 0) == Int16(POLLERR | POLLHUP))
        var gone = buffer(0)
        #expect(call(system, fd, .dequeueBuffer, &gone) == ENODEV)
        try system.close(fd)
        #expect(throws: Errno(rawValue: ENOENT)) { try system.open("/dev/video1", flags: O_RDWR) }
    }

    @Test func appliesTheControlFrameworkRules() throws {
        let system = system
        let fd = try system.open("/dev/video0", flags: O_RDWR)
        // Integers are clamped and rounded to the step, as the kernel does.
        var focus = v4l2_control(id: CAMRTP_V4L2_CID_FOCUS_ABSOLUTE, value: 999)
        #expect(call(system, fd, .setControl, &focus) == 0)
        #expect(focus.value == 250)
        var exposure = v4l2_control(id: CAMRTP_V4L2_CID_EXPOSURE_AUTO, value: 2)
        #expect(call(system, fd, .setControl, &exposure) == EINVAL)
        var menu = v4l2_querymenu()
        menu.id = CAMRTP_V4L2_CID_EXPOSURE_AUTO
        menu.index = 0
        #expect(call(system, fd, .queryMenu, &menu) == EINVAL)
        var unknown = v4l2_control(id: CAMRTP_V4L2_CID_CAMERA_ORIENTATION, value: 0)
        #expect(call(system, fd, .getControl, &unknown) == EINVAL)
        try system.close(fd)

        let ispSystem = FakeV4L2System(devices: [FakeV4L2Device(.ispCamera(path: "/dev/video0"))])
        let ispFD = try ispSystem.open("/dev/video0", flags: O_RDWR)
        var orientation = v4l2_control(id: CAMRTP_V4L2_CID_CAMERA_ORIENTATION, value: 0)
        #expect(call(ispSystem, ispFD, .setControl, &orientation) == EACCES)
        try ispSystem.close(ispFD)
    }
}
