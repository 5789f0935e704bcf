import MediaCore
import RTCP
import RTP
import TestSupport
import Testing
@testable import RTPSession

/// abs-capture-time and the playout delay as the stream writes them: sizes, bytes, and which
/// packets carry them.
@Suite struct LatencyExtensionStreamTests {
    static let delay = PlayoutDelay(minimumMs: 0, maximumMs: 400)!

    struct SizeCase: Sendable, CustomTestStringConvertible {
        var extensions: HeaderExtensionIDs
        var delay: PlayoutDelay?
        var headerSize: Int
        var orientationCost: Int
        var captureTimeCost: Int
        var bothCost: Int
        var testDescription: String { "\(extensions), \(delay.map { "\($0.minimumMs)-\($0.maximumMs)" } ?? "no delay")" }
    }

    /// One-byte elements: abs-send-time 4, transport-wide 3, playout delay 4, abs-capture-time
    /// 1 + 16, CVO 2, behind the 4-byte block header, padded to a word.
    @Test(arguments: [
        SizeCase(extensions: HeaderExtensionIDs(absoluteCaptureTime: 9), delay: nil, headerSize: 12, orientationCost: 0,
                 captureTimeCost: 24, bothCost: 24),
        SizeCase(extensions: HeaderExtensionIDs(playoutDelay: 12), delay: nil, headerSize: 12, orientationCost: 0,
                 captureTimeCost: 0, bothCost: 0),
        SizeCase(extensions: HeaderExtensionIDs(playoutDelay: 12), delay: delay, headerSize: 20, orientationCost: 0,
                 captureTimeCost: 0, bothCost: 0),
        SizeCase(
            extensions: HeaderExtensionIDs(absoluteSendTime: 2, videoOrientation: 13, transportWideSequenceNumber: 3, absoluteCaptureTime: 9),
            delay: nil, headerSize: 24, orientationCost: 4, captureTimeCost: 16, bothCost: 20),
        SizeCase(
            extensions: HeaderExtensionIDs(
                absoluteSendTime: 2, videoOrientation: 13, transportWideSequenceNumber: 3, absoluteCaptureTime: 9, playoutDelay: 12),
            delay: delay, headerSize: 28, orientationCost: 4, captureTimeCost: 16, bothCost: 20),
    ])
    func headerSizes(testCase: SizeCase) throws {
        let stream = try RTPStream(parameters: vectorSession, payloadType: 96, extensions: testCase.extensions, playoutDelay: testCase.delay)
        #expect(stream.headerSize == testCase.headerSize)
        #expect(stream.orientationCost == testCase.orientationCost)
        #expect(stream.captureTimeCost == testCase.captureTimeCost)
        #expect(stream.captureTimeAndOrientationCost == testCase.bothCost)
    }

    /// A one-packet keyframe captured at monotonic 1 s (2023-11-14 22:13:21 UTC on the test
    /// clock): the delay, then the capture time with offset 0, then CVO.
    @Test func onePacketKeyframeBytes() throws {
        var configuration = sessionConfiguration(extensions: HeaderExtensionIDs(videoOrientation: 13, absoluteCaptureTime: 9, playoutDelay: 12))
        configuration.tuning.playoutDelay = Self.delay
        var packetizer = try makePacketizer(configuration)
        let store = PacketStore(slotCapacity: 1200, maximumSlotCount: 8, initialSlotCount: 1)
        let frame = encodedFrame([1, 2, 3], timestampNs: 1_000_000_000, rotation: .deg90, isKeyframe: true)
        let packets = try packetize(frame, with: &packetizer, into: store)
        #expect(packets.map(\.bytes) == [bytes("""
            90 e0 03e8 00015f90 11223344 bede 0006
            c2 000028  9f e8fe6f81 00000000 00000000 00000000  d0 01  00
            90 80 9234 010203
            """)])
    }

    /// The capture time on the first packet, the delay on every one, CVO on the last; the
    /// split leaves each packet within the MTU.
    @Test func aLongFrameCarriesTheCaptureTimeFirstAndTheDelayThroughout() throws {
        var configuration = sessionConfiguration(
            mtu: 200, extensions: HeaderExtensionIDs(absoluteSendTime: 2, videoOrientation: 13, transportWideSequenceNumber: 3,
                                                     absoluteCaptureTime: 9, playoutDelay: 12))
        configuration.tuning.playoutDelay = Self.delay
        var packetizer = try makePacketizer(configuration)
        let store = PacketStore(slotCapacity: 200, maximumSlotCount: 64, initialSlotCount: 1)
        for size in [500, 1_000, 1_567] {
            let frame = encodedFrame((0..<size).map { UInt8(truncatingIfNeeded: $0) }, timestampNs: 2_000_000_000, isKeyframe: true)
            let packets = try packetize(frame, with: &packetizer, into: store)
            #expect(packets.allSatisfy { $0.bytes.count <= 200 })
            let headers = try packets.map { try RTPHeader(parsing: $0.bytes) }
            let ids = headers.map { Set($0.extensionElements.map(\.id)) }
            #expect(ids.first == [2, 3, 12, 9], "size \(size)")
            #expect(ids.dropFirst().dropLast().allSatisfy { $0 == [2, 3, 12] })
            #expect(ids.last == [2, 3, 12, 13])
            let delays = try headers.map { header in try PlayoutDelay(element: try #require(header.extensionElements.first { $0.id == 12 })) }
            #expect(delays.allSatisfy { $0 == Self.delay })
            let payload = packets.reduce(0) { $0 + $1.bytes.count - $1.entry.headerLength - VP8Payloader.descriptorSize }
            #expect(payload == size)
            release(packets, from: store)
        }
    }

    @Test func theMinimumMTULeavesAByteForAOnePacketFrameWithEveryExtension() throws {
        let extensions = HeaderExtensionIDs(videoOrientation: 13, absoluteCaptureTime: 9, playoutDelay: 12)
        // A 20-byte header with the delay; 20 more with the capture time and CVO; the descriptor
        // of a temporal layer's frame (6 bytes); a byte.
        var configuration = sessionConfiguration(mtu: 46, extensions: extensions)
        configuration.tuning.playoutDelay = Self.delay
        #expect(throws: SendSessionError.mtuTooSmall(mtu: 46, minimum: 47)) { try configuration.validate(protectionOverhead: 0) }
        configuration.tuning.mtu = 47
        var packetizer = try makePacketizer(configuration)
        let store = PacketStore(slotCapacity: 47, maximumSlotCount: 64, initialSlotCount: 1)
        var frame = encodedFrame([1, 2, 3, 4, 5], rotation: .deg90, isKeyframe: true)
        frame.temporalLayer = EncodedFrame.TemporalLayer(index: 0, isLayerSync: true)
        let packets = try packetize(frame, with: &packetizer, into: store)
        #expect(packets.allSatisfy { $0.bytes.count <= 47 })
        #expect(packets.reduce(0) { $0 + $1.bytes.count - $1.entry.headerLength - VP8Payloader.layeredDescriptorSize } == 5)
    }
}

/// Which frames carry abs-capture-time: libwebrtc's AbsoluteCaptureTimeSender rule, and keyframes.
@Suite struct AbsoluteCaptureTimeScheduleTests {
    static let clock = NTPClock(monotonicNs: 0, unixTimeNs: 1_700_000_000_000_000_000)
    static let rtp = RTPClock(offset: 0x1234_5678)

    func value(_ schedule: AbsoluteCaptureTimeSchedule, captureMs: Int64, rtpShiftTicks: UInt32 = 0, keyframe: Bool = false, nowMs: Int64)
        -> AbsoluteCaptureTime?
    {
        schedule.value(
            captureTimeNs: captureMs * 1_000_000, rtpTimestamp: Self.rtp.rtpTimestamp(forNs: captureMs * 1_000_000) &+ rtpShiftTicks,
            clockRate: Self.rtp.clockRate, isKeyframe: keyframe, nowNs: nowMs * 1_000_000)
    }

    @Test func theFirstFrameThenOncePerSecondAndEveryKeyframe() throws {
        var schedule = AbsoluteCaptureTimeSchedule(ntpClock: Self.clock)
        let first = try #require(value(schedule, captureMs: 5_000, nowMs: 5_010))
        // NTP seconds of 2023-11-14 22:13:25 UTC; the offset is 0: the capture clock is ours.
        #expect(first == AbsoluteCaptureTime(captureTimestamp: 0xE8FE_6F85_0000_0000, estimatedCaptureClockOffset: 0))
        schedule.sent(first, rtpTimestamp: Self.rtp.rtpTimestamp(forNs: 5_000_000_000), atNs: 5_010_000_000)
        #expect(value(schedule, captureMs: 5_033, nowMs: 5_043) == nil)
        #expect(value(schedule, captureMs: 6_000, nowMs: 6_010) == nil, "exactly one second later")
        #expect(value(schedule, captureMs: 6_001, nowMs: 6_011) != nil, "more than a second later")
        #expect(value(schedule, captureMs: 5_066, keyframe: true, nowMs: 5_076) != nil)
    }

    /// The interpolation error is rounded to whole milliseconds and must exceed 1.
    @Test func rtpTimeThatNoLongerFollowsCaptureTimeSendsItAgain() throws {
        var schedule = AbsoluteCaptureTimeSchedule(ntpClock: Self.clock)
        let first = try #require(value(schedule, captureMs: 5_000, nowMs: 5_000))
        schedule.sent(first, rtpTimestamp: Self.rtp.rtpTimestamp(forNs: 5_000_000_000), atNs: 5_000_000_000)
        #expect(value(schedule, captureMs: 5_100, rtpShiftTicks: 126, nowMs: 5_100) == nil, "1.4 ms off")
        #expect(value(schedule, captureMs: 5_100, rtpShiftTicks: 144, nowMs: 5_100) != nil, "1.6 ms off")
        #expect(value(schedule, captureMs: 5_100, rtpShiftTicks: 0 &- 144, nowMs: 5_100) != nil, "1.6 ms off the other way")
    }
}

/// The session writes them on the right packets of a real stream, with capture times on the
/// clock of its sender reports, and answers receiver reference times.
@Suite struct LatencySessionTests {
    static let extensions = HeaderExtensionIDs(
        absoluteSendTime: SessionDriver.absoluteSendTimeID, transportWideSequenceNumber: SessionDriver.transportWideID,
        absoluteCaptureTime: 9, playoutDelay: 12)

    /// 3 s of 30 fps frames, a keyframe at 1.5 s: the capture time goes on the first packet of
    /// the first frame, of the first frame more than a second after the last one that had it,
    /// and of the keyframe; a receiver mapping the RTP timestamp with the sender report gets the
    /// same time. The delay goes on every packet, repairs included.
    @Test func captureTimesAndDelayOnTheRightPackets() throws {
        let driver = try SessionDriver(extensions: Self.extensions) { $0.playoutDelay = PlayoutDelay(minimumMs: 100, maximumMs: 300) }
        var packets: [WirePacket] = []
        for index in 0..<90 {
            let captureNs = driver.nowNs - 5 * SessionDriver.ms
            let size = index == 45 ? 5_000 : 2_000
            driver.send(EncodedFrame(
                data: [UInt8](repeating: UInt8(index), count: size), width: 320, height: 240, timestampNs: captureNs, rotation: .deg0,
                isKeyframe: index == 0 || index == 45, isDroppable: false, encodingIndex: 0))
            packets += try driver.flush().map(WirePacket.init)
            driver.advance(byMs: 33)
        }
        let report = try #require(driver.report())
        let senderReport = try #require(report.packets.compactMap { if case .senderReport(let sr) = $0 { sr } else { nil } }.first)

        let carrying = packets.enumerated().filter { $0.element.captureTime != nil }
        let firstPackets = Set(packets.indices.filter { $0 == 0 || packets[$0 - 1].header.marker })
        #expect(carrying.allSatisfy { firstPackets.contains($0.offset) }, "only first packets")
        let frames = carrying.map { item in firstPackets.sorted().firstIndex(of: item.offset)! }
        // Frame 0; frame 31 is 1023 ms after it; frame 45 is a keyframe; frame 76 is 1023 ms after it.
        #expect(frames == [0, 31, 45, 76])

        for (_, packet) in carrying {
            let captureTime = try #require(packet.captureTime)
            #expect(captureTime.estimatedCaptureClockOffset == 0)
            // RTP ticks since the SR, at 90 kHz, from the SR's NTP time (RFC 3550 §6.4.1).
            let ticks = Int64(Int32(bitPattern: packet.header.timestamp &- senderReport.rtpTimestamp))
            let srNs = senderReport.ntpTimestamp.unixTimeNs
            let mappedNs = srNs + ticks * 1_000_000_000 / 90_000
            let stampedNs = NTPTimestamp(seconds: UInt32(captureTime.captureTimestamp >> 32),
                                         fraction: UInt32(truncatingIfNeeded: captureTime.captureTimestamp)).unixTimeNs
            #expect(abs(mappedNs - stampedNs) < 23_000, "within two RTP ticks (22.2 µs)")
        }
        #expect(packets.allSatisfy { $0.playoutDelay == PlayoutDelay(minimumMs: 100, maximumMs: 300) })

        let lost = packets[1].header.sequenceNumber
        driver.receive([.genericNACK(RTCPGenericNACK(senderSSRC: 9, mediaSSRC: SessionDriver.ssrc(ofEncoding: 0), lostSequenceNumbers: [lost]))])
        let repair = try #require(try driver.flush().map(WirePacket.init).first)
        #expect(repair.header.ssrc == SessionDriver.rtxSSRC(ofEncoding: 0) && repair.playoutDelay != nil)
    }

    @Test func noDelayIsWrittenWithoutOneAsked() throws {
        let driver = try SessionDriver(extensions: Self.extensions)
        driver.send(testFrames([3_000])[0])
        let packets = try driver.flush().map(WirePacket.init)
        #expect(!packets.isEmpty && packets.allSatisfy { $0.playoutDelay == nil })
        #expect(packets.first?.captureTime != nil)
    }

    /// RFC 3611 §4.5: LRR is the middle of the RRTR's NTP time, DLRR the time since it arrived in
    /// 1/65536 s; each RRTR is answered once.
    @Test func aReceiverReferenceTimeIsAnsweredInTheNextReport() throws {
        let driver = try SessionDriver()
        driver.send(testFrames([500])[0])
        driver.flush()
        _ = try #require(driver.report())
        let reference = NTPTimestamp(seconds: 0xE8FE_6F81, fraction: 0x4000_0000)
        driver.receive([
            .receiverReport(RTCPReceiverReport(ssrc: 0xBEEF)),
            .extendedReport(RTCPExtendedReport(ssrc: 0xBEEF, blocks: [.receiverReferenceTime(reference)])),
        ])
        var answer: RTCPCompoundPacket?
        var waitedMs: Int64 = 0
        while answer == nil && waitedMs < 3_000 {
            driver.advance(byMs: 1)
            waitedMs += 1
            answer = driver.report()
        }
        let report = try #require(answer)
        let extended = try #require(report.packets.compactMap { if case .extendedReport(let xr) = $0 { xr } else { nil } }.first)
        #expect(extended.ssrc == SessionDriver.ssrc(ofEncoding: 0))
        let expectedDelay = UInt32(waitedMs * 65_536 / 1_000)
        #expect(extended.blocks == [.delaySinceLastReceiverReport([
            .init(ssrc: 0xBEEF, lastReceiverReport: reference.middle32Bits, delay: expectedDelay),
        ])])

        var next: RTCPCompoundPacket?
        while next == nil {
            driver.advance(byMs: 1)
            next = driver.report()
        }
        #expect(!(next?.packets.contains { if case .extendedReport = $0 { true } else { false } } ?? true))
    }
}

extension WirePacket {
    var captureTime: AbsoluteCaptureTime? {
        header.extensionElements.first { $0.id == 9 }.flatMap { try? AbsoluteCaptureTime(element: $0) }
    }

    var playoutDelay: PlayoutDelay? {
        header.extensionElements.first { $0.id == 12 }.flatMap { try? PlayoutDelay(element: $0) }
    }
}
