import Capture
import CV4L2
import FrameProcessing
import Glibc
import MediaCore
import Synchronization
import SystemPackage

/// A bad driver timestamp the fake can stamp on its next frame.
public enum FakeTimestampFault: Sendable {
    /// Two seconds ahead of the clock.
    case inFuture
    /// A second before the previous frame's.
    case backwards
    /// Three seconds old when the frame is ready.
    case stale
}

/// An in-memory V4L2 camera that keeps the kernel's contract for every call the capturer
/// makes (V4L2 uAPI: `VIDIOC_QUERYCAP`, `ENUM_FMT`, `ENUM_FRAMESIZES`, `ENUM_FRAMEINTERVALS`,
/// `G/S_FMT`, `G/S_PARM`, `REQBUFS`, `QUERYBUF`, `QBUF`, `DQBUF`, `STREAMON/OFF`, `QUERYCTRL`,
/// `QUERYMENU`, `G/S_CTRL`; `mmap` of real memory; `poll`). Frames are produced at the set rate
/// while streaming: the moving test pattern converted to the format, or the MJPEG fixture.
/// Faults are injected on demand, and open files and mappings are counted so that tests can
/// prove nothing leaks. Descriptors behave as opened with `O_NONBLOCK` (an empty `DQBUF` is
/// `EAGAIN`), which is how the capturer opens them.
public final class FakeV4L2Device: Sendable {
    public let configuration: FakeV4L2Configuration
    private let state: Mutex<FakeDeviceState>

    public init(_ configuration: FakeV4L2Configuration = FakeV4L2Configuration()) {
        self.configuration = configuration
        state = Mutex(FakeDeviceState(configuration: configuration))
    }

    // MARK: Observation

    /// Descriptors open on this device now.
    public var openFileCount: Int { state.withLock { $0.openFiles.count } }
    /// Buffer mappings not yet unmapped.
    public var liveMappingCount: Int { state.withLock { $0.mappings.count } }
    /// Buffers allocated by `VIDIOC_REQBUFS` and not yet freed.
    public var allocatedBufferCount: Int { state.withLock { $0.buffers.count } }
    public var isStreaming: Bool { state.withLock { $0.streaming } }
    /// How many times `VIDIOC_STREAMON` started the stream.
    public var streamOnCount: Int { state.withLock { $0.streamOnCount } }
    /// The format set now: pixel format, size and rate.
    public var currentFormat: (pixelFormat: PixelFormat, width: Int, height: Int, fps: Int) {
        state.withLock { ($0.format.pixelFormat, $0.size.width, $0.size.height, $0.fps) }
    }

    /// A control's value as the driver holds it.
    public func controlValue(_ id: UInt32) -> Int32? {
        state.withLock { state in state.controls.first { $0.id == id }?.value }
    }

    // MARK: Fault injection

    /// The next `times` calls of `request` fail with `errno`, before doing anything.
    public func failNext(_ request: V4L2Request, with errno: Int32, times: Int = 1) {
        state.withLock { $0.ioctlFaults[request.code, default: []].append(contentsOf: repeatElement(errno, count: times)) }
    }

    /// The next `times` polls fail with `errno` (`EINTR`, say).
    public func failNextPoll(with errno: Int32, times: Int = 1) {
        state.withLock { $0.pollFaults.append(contentsOf: repeatElement(errno, count: times)) }
    }

    /// Every open fails with `errno` (`EACCES` for a user outside the `video` group, `EBUSY`)
    /// until set back to nil.
    public func failOpens(with errno: Int32?) {
        state.withLock { $0.openFailure = errno }
    }

    /// The next `count` frames carry `V4L2_BUF_FLAG_ERROR`.
    public func flagNextFrames(count: Int) {
        state.withLock { $0.errorFrames += count }
    }

    /// The next `count` frames come with fewer bytes than the format needs.
    public func shortenNextFrames(count: Int) {
        state.withLock { $0.shortFrames += count }
    }

    /// The next `count` MJPEG frames arrive corrupt (their start-of-image marker is gone), as a
    /// flaky USB link or a failing camera delivers them: the frame is there, but nothing decodes it.
    public func corruptNextFrames(count: Int) {
        state.withLock { state in
            let (total, overflow) = state.corruptFrames.addingReportingOverflow(count)
            state.corruptFrames = overflow ? .max : total
        }
    }

    /// The next frame's timestamp is wrong in the given way.
    public func corruptNextTimestamp(_ fault: FakeTimestampFault) {
        state.withLock { $0.timestampFaults.append(fault) }
    }

    /// Stops producing frames, as a wedged sensor does; with `untilRestart` a `VIDIOC_STREAMON`
    /// after `STREAMOFF` cures it, otherwise nothing does.
    public func stall(untilRestart: Bool) {
        state.withLock { $0.stall = untilRestart ? .untilRestart : .permanent }
    }

    /// Pulls the plug: polls report `POLLERR | POLLHUP` and calls fail with `ENODEV`, as the
    /// kernel answers on a disconnected device; unmapping and closing still work.
    public func unplug() {
        state.withLock { $0.present = false }
    }

    // MARK: The system-call contract

    func open(fd: Int32) throws(Errno) {
        try state.withLock { state throws(Errno) in
            guard state.present else { throw Errno(rawValue: ENODEV) }
            if let failure = state.openFailure { throw Errno(rawValue: failure) }
            state.openFiles.insert(fd)
        }
    }

    func close(fd: Int32) {
        state.withLock { state in
            state.openFiles.remove(fd)
            // Closing the queue's owner releases the queue; mappings keep their memory alive.
            if state.owner == fd {
                state.stopStreaming()
                state.buffers.removeAll()
                state.owner = nil
            }
        }
    }

    func ioctl(fd: Int32, request: UInt, argument: UnsafeMutableRawPointer) throws(Errno) {
        try state.withLock { state throws(Errno) in
            if var pending = state.ioctlFaults[request], !pending.isEmpty {
                let errno = pending.removeFirst()
                state.ioctlFaults[request] = pending
                throw Errno(rawValue: errno)
            }
            guard state.present else { throw Errno(rawValue: ENODEV) }
            try state.handle(fd: fd, request: request, argument: argument, now: MonotonicClock.nowNs())
        }
    }

    func mmap(fd: Int32, length: Int, offset: Int64) throws(Errno) -> UnsafeMutableRawPointer {
        try state.withLock { state throws(Errno) in
            guard state.present else { throw Errno(rawValue: ENODEV) }
            let index = Int(offset / FakeDeviceState.offsetStride)
            guard offset % FakeDeviceState.offsetStride == 0, state.buffers.indices.contains(index),
                  length > 0, length <= state.buffers[index].memory.length else { throw Errno(rawValue: EINVAL) }
            let memory = state.buffers[index].memory
            state.mappings[UInt(bitPattern: memory.pointer)] = memory
            return memory.pointer
        }
    }

    /// Unmaps `address` if it is one of this device's mappings.
    func munmap(_ address: UnsafeMutableRawPointer) -> Bool {
        state.withLock { $0.mappings.removeValue(forKey: UInt(bitPattern: address)) != nil }
    }

    /// Waits, in short naps so that an unplug or a fault is seen, until a frame is done or the
    /// timeout passes.
    func poll(fd: Int32, events: Int16, timeoutMs: Int32) throws(Errno) -> Int16 {
        let deadlineNs = MonotonicClock.nowNs() + Int64(max(0, timeoutMs)) * 1_000_000
        while true {
            let now = MonotonicClock.nowNs()
            let outcome = try state.withLock { state throws(Errno) -> (Int16?, Int64) in
                if !state.pollFaults.isEmpty { throw Errno(rawValue: state.pollFaults.removeFirst()) }
                guard state.present else { return (Int16(POLLERR | POLLHUP), 0) }
                guard state.owner == fd, state.streaming else { return (Int16(POLLERR), 0) }
                state.produceDueFrames(now: now)
                if !state.done.isEmpty { return (Int16(POLLIN | POLLRDNORM), 0) }
                return (nil, state.stall == nil ? state.nextFrameDueNs : deadlineNs)
            }
            if let revents = outcome.0 { return revents }
            guard now < deadlineNs else { return 0 }
            MonotonicClock.sleep(untilNs: min(outcome.1, deadlineNs, now + 5_000_000))
        }
    }
}

/// Driver memory for one buffer, freed when neither the queue nor a mapping holds it.
final class FakeBufferMemory: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
    let length: Int

    init(length: Int) {
        self.length = length
        pointer = .allocate(byteCount: length, alignment: 4096)
    }

    deinit {
        pointer.deallocate()
    }
}

/// The driver's state, only touched under the device's lock.
struct FakeDeviceState {
    enum Stall { case untilRestart, permanent }

    struct Buffer {
        let memory: FakeBufferMemory
        var bytesUsed = 0
        var flags: UInt32 = 0
        var sequence: UInt32 = 0
        var timestampNs: Int64 = 0
    }

    /// `m.offset` spacing between buffers, so that an offset names one buffer.
    static let offsetStride: Int64 = 1 << 28

    let configuration: FakeV4L2Configuration
    var present = true
    var openFiles: Set<Int32> = []
    var openFailure: Int32?
    var format: FakeFormat
    var size: FakeFrameSize
    var fps: Int
    var controls: [FakeControl]

    var buffers: [Buffer] = []
    var owner: Int32?
    /// Buffers queued for the driver to fill, then filled and waiting for DQBUF, in order.
    var incoming: [Int] = []
    var done: [Int] = []
    var streaming = false
    var streamOnCount = 0
    var nextFrameDueNs: Int64 = 0
    var sequence: UInt32 = 0
    var lastTimestampNs: Int64 = 0
    var mappings: [UInt: FakeBufferMemory] = [:]
    var canvas: (I420Buffer, TestPatternRenderer)?
    /// A tightly packed frame, spread out into padded rows when the device pads.
    var tight: [UInt8] = []

    var ioctlFaults: [UInt: [Int32]] = [:]
    var pollFaults: [Int32] = []
    var errorFrames = 0
    var shortFrames = 0
    var corruptFrames = 0
    var timestampFaults: [FakeTimestampFault] = []
    var stall: Stall?

    init(configuration: FakeV4L2Configuration) {
        self.configuration = configuration
        precondition(!configuration.formats.isEmpty, "a fake camera needs a format")
        format = configuration.formats[0]
        let firstSize: FakeFrameSize = switch format.sizes {
        case .discrete(let sizes): sizes[0]
        case .stepwise(_, let high, _, _), .continuous(_, let high): high
        }
        size = configuration.forcedSize ?? firstSize
        // Drivers start at their fastest rate for the default size.
        fps = switch format.rates(at: size) {
        case .discrete(let rates): rates[0]
        case .continuous(_, let high): high
        case nil: 1
        }
        controls = configuration.controls
    }

    var frameIntervalNs: Int64 { 1_000_000_000 / Int64(max(1, fps)) }

    mutating func stopStreaming() {
        streaming = false
        incoming.removeAll()
        done.removeAll()
    }

    /// Fills queued buffers for every frame slot that has passed. A slot with no queued buffer
    /// loses its frame but still takes a sequence number, as drivers do.
    mutating func produceDueFrames(now: Int64) {
        guard streaming, present, stall == nil else { return }
        let interval = frameIntervalNs
        if now - nextFrameDueNs > 4 * interval {
            let skipped = (now - nextFrameDueNs) / interval
            sequence &+= UInt32(truncatingIfNeeded: skipped)
            nextFrameDueNs += skipped * interval
        }
        while nextFrameDueNs <= now {
            if !incoming.isEmpty {
                let index = incoming.removeFirst()
                fill(index, captureNs: nextFrameDueNs, now: now)
                done.append(index)
            }
            sequence &+= 1
            nextFrameDueNs += interval
        }
    }

    private mutating func fill(_ index: Int, captureNs: Int64, now: Int64) {
        let memory = buffers[index].memory
        var bytes: Int
        if format.pixelFormat == .mjpeg {
            let frames = FakeMJPEGFrames.frames(at: size)
            let frame = frames.isEmpty ? [] : frames[Int(sequence) % frames.count]
            bytes = min(frame.count, memory.length)
            frame.withUnsafeBytes { jpeg in
                UnsafeMutableRawBufferPointer(start: memory.pointer, count: bytes).copyMemory(from: UnsafeRawBufferPointer(rebasing: jpeg[..<bytes]))
            }
        } else {
            let (picture, renderer) = patternCanvas()
            renderer.render(index: Int(sequence), into: picture)
            bytes = writeRaw(picture, into: UnsafeMutableRawBufferPointer(start: memory.pointer, count: memory.length))
        }
        var flags = UInt32(configuration.monotonicTimestamps ? V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC : V4L2_BUF_FLAG_TIMESTAMP_COPY)
        if errorFrames > 0 {
            errorFrames -= 1
            flags |= UInt32(V4L2_BUF_FLAG_ERROR)
        } else if shortFrames > 0 {
            shortFrames -= 1
            bytes = format.pixelFormat == .mjpeg ? 2 : bytes / 2
        } else if corruptFrames > 0 && format.pixelFormat == .mjpeg && bytes >= 2 {
            corruptFrames -= 1
            memory.pointer.storeBytes(of: 0, toByteOffset: 0, as: UInt16.self)
        }
        var timestampNs = captureNs
        if !timestampFaults.isEmpty {
            switch timestampFaults.removeFirst() {
            case .inFuture: timestampNs = now + 2_000_000_000
            case .backwards: timestampNs = lastTimestampNs - 1_000_000_000
            case .stale: timestampNs = now - 3_000_000_000
            }
        }
        lastTimestampNs = timestampNs
        buffers[index].bytesUsed = bytes
        buffers[index].flags = flags
        buffers[index].sequence = sequence
        buffers[index].timestampNs = timestampNs
    }

    /// Pixels per row in memory, padding included.
    var rowPixels: Int {
        format.pixelFormat.isCompressed ? size.width : size.width + configuration.rowPaddingPixels
    }

    /// Bytes one frame takes in a buffer, padding included (`sizeimage`).
    var frameBytes: Int {
        format.pixelFormat.frameByteCount(width: rowPixels, height: size.height) ?? format.bufferBytes(size)
    }

    /// Writes `picture` in the current raw format with the configured row padding; returns the
    /// bytes used. libyuv writes tight rows, which are then spread out plane by plane.
    private mutating func writeRaw(_ picture: I420Buffer, into memory: UnsafeMutableRawBufferPointer) -> Int {
        let pixelFormat = format.pixelFormat
        guard configuration.rowPaddingPixels > 0 else {
            return (try? PixelConverter.convertFromI420(picture, to: pixelFormat, into: memory)) ?? 0
        }
        let tightBytes = pixelFormat.frameByteCount(width: size.width, height: size.height) ?? 0
        if tight.count != tightBytes { tight = [UInt8](repeating: 0, count: tightBytes) }
        guard (try? tight.withUnsafeMutableBytes({ try PixelConverter.convertFromI420(picture, to: pixelFormat, into: $0) })) != nil,
              frameBytes <= memory.count else { return 0 }
        let chroma = (width: (size.width + 1) / 2, height: (size.height + 1) / 2, padded: (rowPixels + 1) / 2)
        let perPixel = pixelFormat.firstPlaneBytesPerPixel
        // Each plane as (bytes per tight row, rows, bytes per padded row), in memory order.
        let planes: [(Int, Int, Int)] = switch pixelFormat {
        case .i420: [(size.width, size.height, rowPixels), (chroma.width, chroma.height, chroma.padded), (chroma.width, chroma.height, chroma.padded)]
        case .nv12, .nv21: [(size.width, size.height, rowPixels), (2 * chroma.width, chroma.height, 2 * chroma.padded)]
        case .yuyv, .uyvy, .rgb24, .bgra, .mjpeg: [(perPixel * size.width, size.height, perPixel * rowPixels)]
        }
        var source = 0, destination = 0
        tight.withUnsafeBytes { tight in
            for (rowBytes, rows, paddedBytes) in planes {
                for _ in 0..<rows {
                    UnsafeMutableRawBufferPointer(rebasing: memory[destination..<(destination + rowBytes)])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: tight[source..<(source + rowBytes)]))
                    source += rowBytes
                    destination += paddedBytes
                }
            }
        }
        return frameBytes
    }

    /// The picture and renderer for the current size, made once per size.
    private mutating func patternCanvas() -> (I420Buffer, TestPatternRenderer) {
        if let canvas, canvas.0.width == size.width, canvas.0.height == size.height { return canvas }
        let made = (I420Buffer(width: size.width, height: size.height), TestPatternRenderer(width: size.width, height: size.height))
        canvas = made
        return made
    }

    // MARK: ioctls

    mutating func handle(fd: Int32, request: UInt, argument: UnsafeMutableRawPointer, now: Int64) throws(Errno) {
        switch request {
        case V4L2Request.querycap.code: queryCapability(argument.assumingMemoryBound(to: v4l2_capability.self))
        case V4L2Request.enumFormat.code: try enumerateFormat(argument.assumingMemoryBound(to: v4l2_fmtdesc.self))
        case V4L2Request.enumFrameSizes.code: try enumerateSizes(argument.assumingMemoryBound(to: v4l2_frmsizeenum.self))
        case V4L2Request.enumFrameIntervals.code: try enumerateIntervals(argument.assumingMemoryBound(to: v4l2_frmivalenum.self))
        case V4L2Request.getFormat.code: try getFormat(argument.assumingMemoryBound(to: v4l2_format.self))
        case V4L2Request.setFormat.code: try setFormat(fd: fd, argument.assumingMemoryBound(to: v4l2_format.self))
        case V4L2Request.getParameters.code: try getParameters(argument.assumingMemoryBound(to: v4l2_streamparm.self))
        case V4L2Request.setParameters.code: try setParameters(argument.assumingMemoryBound(to: v4l2_streamparm.self))
        case V4L2Request.requestBuffers.code: try requestBuffers(fd: fd, argument.assumingMemoryBound(to: v4l2_requestbuffers.self))
        case V4L2Request.queryBuffer.code: try queryBuffer(argument.assumingMemoryBound(to: v4l2_buffer.self))
        case V4L2Request.queueBuffer.code: try queueBuffer(fd: fd, argument.assumingMemoryBound(to: v4l2_buffer.self))
        case V4L2Request.dequeueBuffer.code: try dequeueBuffer(fd: fd, argument.assumingMemoryBound(to: v4l2_buffer.self), now: now)
        case V4L2Request.streamOn.code: try streamOn(fd: fd, argument.assumingMemoryBound(to: Int32.self), now: now)
        case V4L2Request.streamOff.code: try streamOff(fd: fd, argument.assumingMemoryBound(to: Int32.self))
        case V4L2Request.queryControl.code: try queryControl(argument.assumingMemoryBound(to: v4l2_queryctrl.self))
        case V4L2Request.queryMenu.code: try queryMenu(argument.assumingMemoryBound(to: v4l2_querymenu.self))
        case V4L2Request.getControl.code: try getControl(argument.assumingMemoryBound(to: v4l2_control.self))
        case V4L2Request.setControl.code: try setControl(argument.assumingMemoryBound(to: v4l2_control.self))
        default: throw Errno(rawValue: ENOTTY)
        }
    }

    private var isCaptureNode: Bool { configuration.kind == .videoCapture }

    private func queryCapability(_ capability: UnsafeMutablePointer<v4l2_capability>) {
        var value = v4l2_capability()
        CString.encode("camrtp-fake", into: &value.driver)
        CString.encode(configuration.card, into: &value.card)
        CString.encode(configuration.busInfo, into: &value.bus_info)
        value.version = 0x0006_0100
        value.device_caps = switch configuration.kind {
        case .videoCapture: UInt32(V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING)
        case .metadataCapture: UInt32(V4L2_CAP_META_CAPTURE | V4L2_CAP_STREAMING)
        case .memoryToMemory: UInt32(V4L2_CAP_VIDEO_M2M | V4L2_CAP_STREAMING)
        }
        value.capabilities = value.device_caps | UInt32(V4L2_CAP_DEVICE_CAPS)
        capability.pointee = value
    }

    private func checkCaptureType(_ type: UInt32) throws(Errno) {
        guard isCaptureNode, type == V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue else { throw Errno(rawValue: EINVAL) }
    }

    private func format(fourcc: UInt32) -> FakeFormat? {
        configuration.formats.first { $0.pixelFormat.fourcc == fourcc }
    }

    private func enumerateFormat(_ description: UnsafeMutablePointer<v4l2_fmtdesc>) throws(Errno) {
        try checkCaptureType(description.pointee.type)
        let index = Int(description.pointee.index)
        guard configuration.formats.indices.contains(index) else { throw Errno(rawValue: EINVAL) }
        let format = configuration.formats[index]
        var flags: UInt32 = format.isEmulated ? UInt32(V4L2_FMT_FLAG_EMULATED) : 0
        if format.pixelFormat.isCompressed { flags |= UInt32(V4L2_FMT_FLAG_COMPRESSED) }
        description.pointee.flags = flags
        description.pointee.pixelformat = format.pixelFormat.fourcc
        CString.encode(format.pixelFormat.rawValue, into: &description.pointee.description)
    }

    private func enumerateSizes(_ entry: UnsafeMutablePointer<v4l2_frmsizeenum>) throws(Errno) {
        guard isCaptureNode, let format = format(fourcc: entry.pointee.pixel_format) else { throw Errno(rawValue: EINVAL) }
        let index = Int(entry.pointee.index)
        switch format.sizes {
        case .discrete(let sizes):
            guard sizes.indices.contains(index) else { throw Errno(rawValue: EINVAL) }
            entry.pointee.type = V4L2_FRMSIZE_TYPE_DISCRETE.rawValue
            entry.pointee.discrete = v4l2_frmsize_discrete(width: UInt32(sizes[index].width), height: UInt32(sizes[index].height))
        case .stepwise(let low, let high, let stepWidth, let stepHeight):
            guard index == 0 else { throw Errno(rawValue: EINVAL) }
            entry.pointee.type = V4L2_FRMSIZE_TYPE_STEPWISE.rawValue
            entry.pointee.stepwise = Self.range(low, high, stepWidth, stepHeight)
        case .continuous(let low, let high):
            guard index == 0 else { throw Errno(rawValue: EINVAL) }
            entry.pointee.type = V4L2_FRMSIZE_TYPE_CONTINUOUS.rawValue
            entry.pointee.stepwise = Self.range(low, high, 1, 1)
        }
    }

    private static func range(_ low: FakeFrameSize, _ high: FakeFrameSize, _ stepWidth: Int, _ stepHeight: Int) -> v4l2_frmsize_stepwise {
        v4l2_frmsize_stepwise(
            min_width: UInt32(low.width), max_width: UInt32(high.width), step_width: UInt32(stepWidth),
            min_height: UInt32(low.height), max_height: UInt32(high.height), step_height: UInt32(stepHeight))
    }

    private func enumerateIntervals(_ entry: UnsafeMutablePointer<v4l2_frmivalenum>) throws(Errno) {
        let size = FakeFrameSize(Int(entry.pointee.width), Int(entry.pointee.height))
        guard isCaptureNode, let format = format(fourcc: entry.pointee.pixel_format), format.sizes.contains(size) else {
            throw Errno(rawValue: EINVAL)
        }
        let index = Int(entry.pointee.index)
        switch format.rates(at: size) {
        case .discrete(let rates) where rates.indices.contains(index):
            entry.pointee.type = V4L2_FRMIVAL_TYPE_DISCRETE.rawValue
            entry.pointee.discrete = v4l2_fract(numerator: 1, denominator: UInt32(rates[index]))
        case .continuous(let low, let high) where index == 0:
            // Intervals are seconds per frame: the shortest interval is the highest rate.
            entry.pointee.type = V4L2_FRMIVAL_TYPE_CONTINUOUS.rawValue
            entry.pointee.stepwise = v4l2_frmival_stepwise(
                min: v4l2_fract(numerator: 1, denominator: UInt32(high)), max: v4l2_fract(numerator: 1, denominator: UInt32(low)),
                step: v4l2_fract(numerator: 1, denominator: 1))
        default:
            throw Errno(rawValue: EINVAL)
        }
    }

    private func getFormat(_ value: UnsafeMutablePointer<v4l2_format>) throws(Errno) {
        try checkCaptureType(value.pointee.type)
        var pix = v4l2_pix_format()
        pix.width = UInt32(size.width)
        pix.height = UInt32(size.height)
        pix.pixelformat = format.pixelFormat.fourcc
        pix.field = V4L2_FIELD_NONE.rawValue
        pix.bytesperline = UInt32(format.pixelFormat.firstPlaneBytesPerPixel * rowPixels)
        pix.sizeimage = UInt32(frameBytes)
        pix.colorspace = V4L2_COLORSPACE_SRGB.rawValue
        value.pointee.fmt.pix = pix
    }

    /// Adjusts the request to what the device supports, as drivers must (uAPI: S_FMT "should
    /// not return an error code unless the type field is invalid"), refusing with EBUSY while
    /// another file owns the buffers.
    private mutating func setFormat(fd: Int32, _ value: UnsafeMutablePointer<v4l2_format>) throws(Errno) {
        try checkCaptureType(value.pointee.type)
        guard owner == nil || owner == fd, buffers.isEmpty else { throw Errno(rawValue: EBUSY) }
        let requested = value.pointee.fmt.pix
        format = self.format(fourcc: requested.pixelformat) ?? configuration.formats[0]
        size = configuration.forcedSize
            ?? format.sizes.nearest(to: FakeFrameSize(Int(requested.width), Int(requested.height)))
        fps = format.nearestRate(to: Double(fps), at: size) ?? fps
        try getFormat(value)
    }

    private func getParameters(_ value: UnsafeMutablePointer<v4l2_streamparm>) throws(Errno) {
        try checkCaptureType(value.pointee.type)
        value.pointee.parm.capture = v4l2_captureparm()
        value.pointee.parm.capture.capability = UInt32(V4L2_CAP_TIMEPERFRAME)
        value.pointee.parm.capture.timeperframe = v4l2_fract(numerator: 1, denominator: UInt32(fps))
    }

    private mutating func setParameters(_ value: UnsafeMutablePointer<v4l2_streamparm>) throws(Errno) {
        try checkCaptureType(value.pointee.type)
        let interval = value.pointee.parm.capture.timeperframe
        if !configuration.ignoresFrameRate, interval.numerator > 0, interval.denominator > 0,
           let rate = format.nearestRate(to: Double(interval.denominator) / Double(interval.numerator), at: size) {
            fps = rate
        }
        try getParameters(value)
    }

    private mutating func requestBuffers(fd: Int32, _ request: UnsafeMutablePointer<v4l2_requestbuffers>) throws(Errno) {
        try checkCaptureType(request.pointee.type)
        guard request.pointee.memory == V4L2_MEMORY_MMAP.rawValue else { throw Errno(rawValue: EINVAL) }
        guard owner == nil || owner == fd, !streaming else { throw Errno(rawValue: EBUSY) }
        // vb2 refuses to free buffers that are still mapped.
        let current = Set(buffers.map { ObjectIdentifier($0.memory) })
        guard !mappings.values.contains(where: { current.contains(ObjectIdentifier($0)) }) else { throw Errno(rawValue: EBUSY) }
        buffers.removeAll()
        guard request.pointee.count > 0 else {
            owner = nil
            return
        }
        let count = min(max(Int(request.pointee.count), 2), 8)
        let length = (frameBytes + 4095) & ~4095
        buffers = (0..<count).map { _ in Buffer(memory: FakeBufferMemory(length: length)) }
        request.pointee.count = UInt32(count)
        request.pointee.capabilities = UInt32(V4L2_BUF_CAP_SUPPORTS_MMAP)
        owner = fd
    }

    private func describe(_ index: Int, into buffer: UnsafeMutablePointer<v4l2_buffer>) {
        let entry = buffers[index]
        var flags = entry.flags
        if incoming.contains(index) { flags |= UInt32(V4L2_BUF_FLAG_QUEUED) }
        if done.contains(index) { flags |= UInt32(V4L2_BUF_FLAG_DONE) }
        if mappings[UInt(bitPattern: entry.memory.pointer)] != nil { flags |= UInt32(V4L2_BUF_FLAG_MAPPED) }
        buffer.pointee.index = UInt32(index)
        buffer.pointee.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buffer.pointee.memory = V4L2_MEMORY_MMAP.rawValue
        buffer.pointee.bytesused = UInt32(entry.bytesUsed)
        buffer.pointee.flags = flags
        buffer.pointee.field = V4L2_FIELD_NONE.rawValue
        buffer.pointee.sequence = entry.sequence
        buffer.pointee.timestamp = timeval(
            tv_sec: Int(entry.timestampNs / 1_000_000_000), tv_usec: Int((entry.timestampNs % 1_000_000_000) / 1_000))
        buffer.pointee.m.offset = UInt32(Int64(index) * Self.offsetStride)
        buffer.pointee.length = UInt32(entry.memory.length)
    }

    private func checkBuffer(_ buffer: UnsafeMutablePointer<v4l2_buffer>) throws(Errno) -> Int {
        try checkCaptureType(buffer.pointee.type)
        let index = Int(buffer.pointee.index)
        guard buffer.pointee.memory == V4L2_MEMORY_MMAP.rawValue, buffers.indices.contains(index) else { throw Errno(rawValue: EINVAL) }
        return index
    }

    private func queryBuffer(_ buffer: UnsafeMutablePointer<v4l2_buffer>) throws(Errno) {
        describe(try checkBuffer(buffer), into: buffer)
    }

    private mutating func queueBuffer(fd: Int32, _ buffer: UnsafeMutablePointer<v4l2_buffer>) throws(Errno) {
        guard owner == fd else { throw Errno(rawValue: EBUSY) }
        let index = try checkBuffer(buffer)
        guard !incoming.contains(index), !done.contains(index) else { throw Errno(rawValue: EINVAL) }
        incoming.append(index)
        describe(index, into: buffer)
    }

    private mutating func dequeueBuffer(fd: Int32, _ buffer: UnsafeMutablePointer<v4l2_buffer>, now: Int64) throws(Errno) {
        try checkCaptureType(buffer.pointee.type)
        guard owner == fd else { throw Errno(rawValue: EBUSY) }
        guard streaming else { throw Errno(rawValue: EINVAL) }
        produceDueFrames(now: now)
        guard !done.isEmpty else { throw Errno(rawValue: EAGAIN) }
        describe(done.removeFirst(), into: buffer)
    }

    private mutating func streamOn(fd: Int32, _ type: UnsafeMutablePointer<Int32>, now: Int64) throws(Errno) {
        try checkCaptureType(UInt32(type.pointee))
        guard owner == fd, !buffers.isEmpty else { throw Errno(rawValue: owner == nil ? EINVAL : EBUSY) }
        guard !streaming else { return }
        streaming = true
        streamOnCount += 1
        nextFrameDueNs = now + frameIntervalNs
        if stall == .untilRestart { stall = nil }
    }

    private mutating func streamOff(fd: Int32, _ type: UnsafeMutablePointer<Int32>) throws(Errno) {
        try checkCaptureType(UInt32(type.pointee))
        guard owner == nil || owner == fd else { throw Errno(rawValue: EBUSY) }
        stopStreaming()
    }

    private func control(_ id: UInt32) throws(Errno) -> Int {
        guard let index = controls.firstIndex(where: { $0.id == id }) else { throw Errno(rawValue: EINVAL) }
        return index
    }

    private func queryControl(_ query: UnsafeMutablePointer<v4l2_queryctrl>) throws(Errno) {
        let control = controls[try control(query.pointee.id)]
        var value = v4l2_queryctrl()
        value.id = control.id
        value.type = switch control.kind {
        case .integer: V4L2_CTRL_TYPE_INTEGER.rawValue
        case .boolean: V4L2_CTRL_TYPE_BOOLEAN.rawValue
        case .menu: V4L2_CTRL_TYPE_MENU.rawValue
        }
        CString.encode(control.name, into: &value.name)
        value.minimum = control.minimum
        value.maximum = control.maximum
        value.step = control.step
        value.default_value = control.defaultValue
        value.flags = control.isReadOnly ? UInt32(V4L2_CTRL_FLAG_READ_ONLY) : 0
        query.pointee = value
    }

    private func queryMenu(_ entry: UnsafeMutablePointer<v4l2_querymenu>) throws(Errno) {
        let control = controls[try control(entry.pointee.id)]
        guard case .menu(let items) = control.kind, let name = items[Int32(bitPattern: entry.pointee.index)] else {
            throw Errno(rawValue: EINVAL)
        }
        CString.encode(name, into: &entry.pointee.name)
    }

    private func getControl(_ value: UnsafeMutablePointer<v4l2_control>) throws(Errno) {
        value.pointee.value = controls[try control(value.pointee.id)].value
    }

    /// The control framework's rules: read-only fails with EACCES, an integer is clamped and
    /// rounded to its step, and a menu index that is out of range or a gap fails with EINVAL.
    private mutating func setControl(_ value: UnsafeMutablePointer<v4l2_control>) throws(Errno) {
        let index = try control(value.pointee.id)
        let control = controls[index]
        guard !control.isReadOnly else { throw Errno(rawValue: EACCES) }
        let requested = value.pointee.value
        switch control.kind {
        case .menu(let items):
            guard items[requested] != nil else { throw Errno(rawValue: EINVAL) }
            controls[index].value = requested
        case .integer, .boolean:
            let clamped = min(max(requested, control.minimum), control.maximum)
            let step = max(1, control.step)
            controls[index].value = control.minimum + (clamped - control.minimum + step / 2) / step * step
        }
        value.pointee.value = controls[index].value
    }
}
