import CongestionControl
import MediaCore
import Pacing
import RTCP
import RTP
import RTPSession
import TestSupport
import Testing

/// The send session on its own, driven on a test clock through every input: frames, each kind
/// of feedback, ticks and the end. Three encodings stand for simulcast: each has its own media
/// and RTX streams, sequence numbers and history under one transport-wide sequence.
@Suite struct SendSessionTests {
    static let ms = SessionDriver.ms

    @Test func framesLeaveAsPacketsOfTheirEncodingsStreams() throws {
        let driver = try SessionDriver(encodings: 3)
        for index in 0..<3 { driver.send(testFrames([2_500], encodingIndex: index)[0]) }
        let packets = try driver.flush().map(WirePacket.init)
        #expect(packets.count == 9)
        for index in 0..<3 {
            let stream = packets.filter { $0.header.ssrc == SessionDriver.ssrc(ofEncoding: index) }
            let first = UInt16(100 * (index + 1))
            #expect(stream.map(\.header.sequenceNumber) == [first, first + 1, first + 2], "its own sequence numbers")
            #expect(stream.map(\.header.marker) == [false, false, true])
        }
        // One transport-wide sequence across the streams, in the order the packets left.
        let numbers = packets.compactMap(\.transportSequenceNumber)
        #expect(numbers == (0..<9).map { UInt16($0) })
        let sendTime = try #require(packets[0].header.extensionElements.first { $0.id == SessionDriver.absoluteSendTimeID })
        #expect(try AbsoluteSendTime(element: sendTime) == AbsoluteSendTime(timeNs: driver.nowNs))
    }

    @Test func aFrameForAnEncodingTheSessionDoesNotHaveIsNotSent() throws {
        let driver = try SessionDriver(encodings: 1)
        driver.send(testFrames([500], encodingIndex: 1)[0])
        #expect(driver.flush().isEmpty)
    }

    /// RFC 4585 §6.2.1, RFC 4588 §4: a NACK about one encoding's media SSRC is answered on that
    /// encoding's RTX stream, original sequence number first, from that encoding's history.
    @Test func aNACKIsAnsweredOnTheRightRTXStream() throws {
        let driver = try SessionDriver(encodings: 3)
        for index in 0..<3 { driver.send(testFrames([2_500], encodingIndex: index)[0]) }
        let sent = try driver.flush().map(WirePacket.init)
        driver.advance(byMs: 30)
        let ssrc = SessionDriver.ssrc(ofEncoding: 1)
        driver.receive([.genericNACK(RTCPGenericNACK(senderSSRC: 9, mediaSSRC: ssrc, lostSequenceNumbers: [201]))])
        let repairs = try driver.flush().map(WirePacket.init)
        #expect(repairs.count == 1)
        let repair = try #require(repairs.first)
        #expect(repair.header.ssrc == SessionDriver.rtxSSRC(ofEncoding: 1) && repair.header.payloadType == 97)
        #expect(repair.originalSequenceNumber == 201)
        let original = try #require(sent.first { $0.header.ssrc == ssrc && $0.header.sequenceNumber == 201 })
        let restored = try repair.bytes.withUnsafeBytes { try RTXPacket.original(ofRetransmission: $0, ssrc: ssrc, payloadType: 96) }
        #expect(restored.payload == Array(original.bytes[original.header.serializedSize...]))
        #expect(repair.transportSequenceNumber == 9, "the next transport-wide number")
        driver.advance(byMs: 300)
        driver.flush()
        let statistics = try #require(driver.lastStatistics)
        #expect(statistics.rtcpReceived.nack == 1 && statistics.nackedPackets == 1 && statistics.packetsRetransmitted == 1)
    }

    @Test func withoutRTXTheRepairIsTheStoredPacketAgain() throws {
        let driver = try SessionDriver(encodings: 2, retransmission: .resend)
        for index in 0..<2 { driver.send(testFrames([2_500], encodingIndex: index)[0]) }
        let sent = driver.flush()
        driver.advance(byMs: 30)
        driver.receive([.genericNACK(RTCPGenericNACK(senderSSRC: 9, mediaSSRC: SessionDriver.ssrc(ofEncoding: 1), lostSequenceNumbers: [200]))])
        let repair = try #require(driver.flush().first)
        let original = try #require(try sent.first { try WirePacket($0).header.ssrc == SessionDriver.ssrc(ofEncoding: 1) })
        // The same bytes but for the send-time extensions, which are stamped anew.
        #expect(try WirePacket(repair).header.sequenceNumber == 200)
        #expect(repair.count == original.count)
    }

    @Test func aNACKForAPacketNeverSentOrLongGoneIsCounted() throws {
        let driver = try SessionDriver()
        driver.send(testFrames([500])[0])
        driver.flush()
        driver.receive([.genericNACK(RTCPGenericNACK(senderSSRC: 9, mediaSSRC: SessionDriver.ssrc(ofEncoding: 0), lostSequenceNumbers: [7, 50_000]))])
        #expect(driver.flush().isEmpty)
        driver.advance(byMs: 300)
        driver.flush()
        let statistics = try #require(driver.lastStatistics)
        #expect(statistics.nackedPackets == 2 && statistics.nackedPacketsMissing == 2 && statistics.packetsRetransmitted == 0)
    }

    /// A PLI about one SSRC asks for a keyframe of that encoding only; a FIR likewise, once per
    /// request (RFC 5104 §4.3.1.2); each encoding keeps its own 300 ms throttle.
    @Test func keyframeRequestsNameTheirEncoding() throws {
        let driver = try SessionDriver(encodings: 3)
        for index in 0..<3 { driver.send(testFrames([500], encodingIndex: index)[0]) }
        driver.flush()
        driver.advance(byMs: 100)
        _ = driver.takeCommands()
        driver.receive([.pictureLossIndication(RTCPPictureLossIndication(senderSSRC: 9, mediaSSRC: SessionDriver.ssrc(ofEncoding: 2)))])
        #expect(driver.takeCommands() == [.keyframe(encodingIndex: 2)])
        driver.receive([.pictureLossIndication(RTCPPictureLossIndication(senderSSRC: 9, mediaSSRC: SessionDriver.ssrc(ofEncoding: 2)))])
        #expect(driver.takeCommands().isEmpty, "within 300 ms of the last: deferred")
        let fir = RTCPFullIntraRequest(senderSSRC: 9, entries: [.init(ssrc: SessionDriver.ssrc(ofEncoding: 0), sequenceNumber: 4)])
        driver.receive([.fullIntraRequest(fir)])
        driver.receive([.fullIntraRequest(fir)])
        #expect(driver.takeCommands() == [.keyframe(encodingIndex: 0)], "the repeated FIR is the same request")
        driver.receive([.pictureLossIndication(RTCPPictureLossIndication(senderSSRC: 9, mediaSSRC: 0xDEAD))])
        #expect(driver.takeCommands().isEmpty, "not our SSRC")
        // The deferred request on encoding 2 comes when its interval is over.
        driver.advance(byMs: 300)
        driver.flush()
        #expect(driver.takeCommands().contains(.keyframe(encodingIndex: 2)))
    }

    @Test func rembAboutAnyOfOurStreamsCapsTheTarget() throws {
        let driver = try SessionDriver(encodings: 2)
        driver.send(testFrames([500])[0])
        driver.flush()
        let remb = RTCPReceiverEstimatedMaximumBitrate(senderSSRC: 9, bitrateBps: 400_000, ssrcs: [SessionDriver.ssrc(ofEncoding: 1)])
        driver.receive([.receiverEstimatedMaximumBitrate(remb)])
        #expect(driver.session.estimate.targetBitrateBps <= 400_000)
        #expect(driver.takeCommands().contains(.targetBitrate(kbps: 400)))
        let foreign = RTCPReceiverEstimatedMaximumBitrate(senderSSRC: 9, bitrateBps: 100_000, ssrcs: [0xDEAD])
        driver.receive([.receiverEstimatedMaximumBitrate(foreign)])
        #expect(driver.session.estimate.targetBitrateBps > 100_000, "a REMB about someone else's stream")
    }

    /// Transport-wide feedback about the packets of every stream drives one controller; feedback
    /// that names another sender's SSRC is not ours.
    @Test func transportFeedbackCoversEveryStream() throws {
        let driver = try SessionDriver(encodings: 2) { $0.congestionControl = CongestionControllerConfiguration(startBitrateBps: 2_000_000, isProbingEnabled: false) }
        for index in 0..<2 { driver.send(testFrames([6_000], encodingIndex: index)[0]) }
        let packets = try driver.flush().map(WirePacket.init)
        // Arrivals at 320 kbit/s: far below what was sent.
        var arrivals: [RTCPTransportWideFeedback.PacketResult] = []
        for (index, packet) in packets.enumerated() {
            arrivals.append(.init(sequenceNumber: try #require(packet.transportSequenceNumber), receiveTimeUs: 5_000_000 + Int64(index) * 30_000))
        }
        driver.advance(byMs: 60)
        let foreign = try RTCPTransportWideFeedback(senderSSRC: 9, mediaSSRC: 0xDEAD, feedbackPacketCount: 0, packets: arrivals)
        driver.receive([.transportWideFeedback(foreign)])
        #expect(driver.lastStatistics == nil || driver.lastStatistics?.twccFeedbackReceived == 0)
        let feedback = try RTCPTransportWideFeedback(
            senderSSRC: 9, mediaSSRC: SessionDriver.ssrc(ofEncoding: 1), feedbackPacketCount: 1, packets: arrivals)
        driver.receive([.transportWideFeedback(feedback)])
        driver.advance(byMs: 300)
        driver.flush()
        let statistics = try #require(driver.lastStatistics)
        #expect(statistics.rtcpReceived.twcc == 2 && statistics.twccFeedbackReceived == 1)
    }

    /// Chromium names in its transport feedback the SSRC of the packet it received last: while the
    /// encoder is paused for congestion, that is the RTX stream the keep-alives go on. Feedback
    /// about an RTX stream of ours counts, or the window would never reopen.
    @Test func transportFeedbackNamingAnRTXStreamCounts() throws {
        let driver = try SessionDriver(encodings: 1)
        driver.send(testFrames([2_000])[0])
        let packets = try driver.flush().map(WirePacket.init)
        let arrivals = try packets.enumerated().map { index, packet in
            RTCPTransportWideFeedback.PacketResult(
                sequenceNumber: try #require(packet.transportSequenceNumber), receiveTimeUs: 5_000_000 + Int64(index) * 1_000)
        }
        driver.advance(byMs: 60)
        let feedback = try RTCPTransportWideFeedback(
            senderSSRC: 9, mediaSSRC: SessionDriver.rtxSSRC(ofEncoding: 0), feedbackPacketCount: 0, packets: arrivals)
        driver.receive([.transportWideFeedback(feedback)])
        driver.advance(byMs: 300)
        driver.flush()
        #expect(driver.lastStatistics?.twccFeedbackReceived == 1)
    }

    /// RFC 3550 §6.4.1: an SR for each stream in one compound, the CNAME for each; a receiver
    /// report echoing it gives the RTT, and the loss of all our streams it covers is summed.
    @Test func senderReportsCoverEveryEncodingAndReceiverReportsGiveTheRTT() throws {
        let driver = try SessionDriver(encodings: 2)
        driver.send(testFrames([2_500], encodingIndex: 0)[0])
        driver.send(testFrames([500], encodingIndex: 1)[0])
        let sent = try driver.flush().map(WirePacket.init)
        let report = try #require(driver.report())
        let senderReports = report.packets.compactMap { if case .senderReport(let report) = $0 { report } else { nil } }
        #expect(senderReports.map(\.ssrc) == [SessionDriver.ssrc(ofEncoding: 0), SessionDriver.ssrc(ofEncoding: 1)])
        #expect(senderReports.map(\.packetCount) == [3, 1])
        let payload = sent.filter { $0.header.ssrc == SessionDriver.ssrc(ofEncoding: 0) }.reduce(0) { $0 + $1.bytes.count - $1.header.serializedSize }
        #expect(senderReports[0].octetCount == UInt32(payload))
        #expect(report.packets.contains { if case .sourceDescription(let sdes) = $0 { sdes.chunks.count == 2 } else { false } })
        #expect(driver.report() == nil, "the next report is about a second away")

        driver.advance(byMs: 40)
        let echoed = senderReports[0].ntpTimestamp.middle32Bits
        let block = { (ssrc: UInt32, lost: Int32, highest: UInt32) in
            RTCPReportBlock(
                ssrc: ssrc, fractionLost: 0, cumulativeLost: lost, extendedHighestSequenceNumber: highest, interarrivalJitter: 0,
                lastSenderReport: echoed, delaySinceLastSenderReport: 655)  // 10 ms
        }
        driver.receive([.receiverReport(RTCPReceiverReport(ssrc: 9, reportBlocks: [block(SessionDriver.ssrc(ofEncoding: 0), 0, 102), block(0xDEAD, 0, 5)]))])
        driver.advance(byMs: 300)
        driver.flush()
        let rtt = try #require(driver.lastStatistics?.rttMs)
        #expect(abs(rtt.last - 30) < 0.1, "40 ms since the SR less 10 ms held at the receiver")
    }

    /// After `close`, what is queued goes, then BYE for every stream 50 ms after the last media
    /// packet, and the final statistics.
    @Test func closingSendsWhatIsQueuedThenBye() throws {
        let driver = try SessionDriver(encodings: 2) { $0.pacing = PacerConfiguration(isPacingEnabled: true) }
        driver.send(testFrames([30_000])[0])
        driver.session.close()
        var packets = driver.flush()
        var bye: RTCPCompoundPacket?
        for _ in 0..<2_000 where bye == nil {
            if let report = driver.report(), report.packets.contains(where: { if case .bye = $0 { true } else { false } }) {
                bye = report
            }
            driver.advance(byMs: 1)
            packets += driver.flush()
        }
        #expect(packets.count == 26)
        let byePacket = try #require(bye?.packets.compactMap { if case .bye(let bye) = $0 { bye } else { nil } }.first)
        #expect(byePacket.ssrcs == [SessionDriver.ssrc(ofEncoding: 0), SessionDriver.ssrc(ofEncoding: 1)])
        #expect(driver.session.isFinished)
        #expect(driver.session.nextDeadlineNs(nowNs: driver.nowNs) == nil || driver.report() == nil)
        #expect(driver.lastStatistics != nil)
    }

    @Test func aSessionThatNeverSentFinishesWithoutBye() throws {
        let driver = try SessionDriver()
        driver.session.close()
        #expect(driver.report() == nil)
        #expect(driver.session.isFinished)
    }

    /// Feedback that is not RTCP, malformed packets and a flood over 1000 a second are counted as
    /// rejected and change nothing.
    @Test func badAndExcessiveFeedbackIsRejected() throws {
        let driver = try SessionDriver()
        driver.send(testFrames([500])[0])
        driver.flush()
        driver.receive([0x80, 0xC9, 0x00, 0x09, 1, 2, 3])  // An RR whose length runs past the datagram.
        driver.receive([0x13, 0x37])
        driver.receive([.applicationDefined(RTCPApplicationDefined(subtype: 0, ssrc: 9, name: "test", data: []))])
        let pli = RTCPCompoundPacket(packets: [.pictureLossIndication(RTCPPictureLossIndication(senderSSRC: 9, mediaSSRC: 0x1000))]).serialized()
        for _ in 0..<1_000 { driver.receive(pli) }
        driver.advance(byMs: 300)
        driver.flush()
        let statistics = try #require(driver.lastStatistics)
        // A burst of 200 datagrams, three of them taken before the flood.
        #expect(statistics.rtcpReceived.rejected == 2 + 803, "two unreadable, and the flood beyond the burst")
        #expect(statistics.rtcpReceived.pli == 197 && statistics.rtcpReceived.other == 1)
        #expect(statistics.keyframesOnRequest == 2, "one at once, one when the 300 ms are over")
    }
}

/// Forward error correction: RED around the media, ULPFEC packets after the frames they protect,
/// repairs that carry the media packet itself, and the encoder's rate less the FEC's.
@Suite struct SendSessionFECTests {
    @Test func mediaLeavesInREDAndTheFECThatFollowsRebuildsAnyLostPacket() throws {
        let driver = try SessionDriver(fec: .on)
        driver.send(testFrames([6_000])[0])  // a keyframe of six packets: 50 % FEC, three packets
        let sent = try driver.flush().map(WirePacket.init)
        #expect(sent.allSatisfy { $0.header.payloadType == SessionDriver.redPayloadType })
        let unwrapped = try sent.map { try #require($0.unwrappedRED) }
        let media = unwrapped.filter { $0[1] & 0x7F == 96 }
        let fec = unwrapped.filter { $0[1] & 0x7F == SessionDriver.ulpfecPayloadType }
        #expect(media.count == 6 && fec.count == 3)
        #expect(sent.map(\.header.sequenceNumber) == (0..<9).map { 100 + UInt16($0) }, "FEC packets follow on the stream")
        #expect(sent.compactMap(\.transportSequenceNumber) == (0..<9).map { UInt16($0) }, "and count for congestion control")
        // Interleaved: FEC j protects every third media packet from j.
        for (j, packet) in fec.enumerated() {
            let header = try RTPHeader(parsing: packet)
            let protection = try ULPFECHeader(parsing: Array(packet[header.serializedSize...]))
            #expect(protection.protectedSequenceNumbers == [100, 103].map { $0 + UInt16(j) })
        }
        #expect(try Self.expectEachRebuiltAsSent(media: media, fec: fec) == 6)
    }

    /// Every media packet that one of `fec` protects, rebuilt from it and the others as they were
    /// sent (unwrapped from RED), is the packet sent, its send-time extensions included. Returns
    /// how many were rebuilt.
    @discardableResult
    static func expectEachRebuiltAsSent(media: [[UInt8]], fec: [[UInt8]]) throws -> Int {
        var rebuilt = 0
        for lost in media {
            let lostNumber = try RTPHeader(parsing: lost).sequenceNumber
            guard let protecting = try fec.first(where: { packet in
                let header = try RTPHeader(parsing: packet)
                return try ULPFECHeader(parsing: Array(packet[header.serializedSize...])).protectedSequenceNumbers.contains(lostNumber)
            }) else { continue }
            let fecHeader = try RTPHeader(parsing: protecting)
            let recovered = ULPFECRecovery.recover(from: Array(protecting[fecHeader.serializedSize...]), ssrc: 0x1000) { number in
                number == lostNumber ? nil : try? media.first { try RTPHeader(parsing: $0).sequenceNumber == number }
            }
            #expect(recovered == lost, "packet \(lostNumber) rebuilt as sent, its send times included")
            rebuilt += 1
        }
        return rebuilt
    }

    @Test func aRepairCarriesTheMediaPacketItselfNotItsRED() throws {
        let driver = try SessionDriver(fec: .on)
        driver.send(testFrames([2_500])[0])
        driver.flush()
        driver.advance(byMs: 30)
        driver.receive([.genericNACK(RTCPGenericNACK(senderSSRC: 9, mediaSSRC: 0x1000, lostSequenceNumbers: [101]))])
        let repair = try WirePacket(try #require(driver.flush().first))
        #expect(repair.header.ssrc == SessionDriver.rtxSSRC(ofEncoding: 0) && repair.header.payloadType == 97)
        let restored = try repair.bytes.withUnsafeBytes { try RTXPacket.original(ofRetransmission: $0, ssrc: 0x1000, payloadType: 96) }
        #expect(restored.header.sequenceNumber == 101)
        #expect(try VP8PayloadDescriptor(parsing: restored.payload).partitionIndex == 0, "a VP8 payload, not a RED block")
    }

    /// GStreamer and Chromium NACK every gap, FEC packets' too; a repair of one would go on RTX
    /// as a VP8 packet (apt=96) and be decoded as one.
    @Test(arguments: [Retransmission.rtx, .resend])
    func aNACKedFECPacketIsNotSentAgain(_ retransmission: Retransmission) throws {
        let driver = try SessionDriver(retransmission: retransmission, fec: .on)
        driver.send(testFrames([6_000])[0])  // media 100–105, FEC 106–108
        driver.flush()
        driver.advance(byMs: 30)
        driver.receive([.genericNACK(RTCPGenericNACK(senderSSRC: 9, mediaSSRC: 0x1000, lostSequenceNumbers: [106, 104]))])
        let repairs = try driver.flush().map(WirePacket.init)
        #expect(repairs.count == 1)
        let repaired = retransmission == .rtx
            ? try repairs[0].bytes.withUnsafeBytes { try RTXPacket.original(ofRetransmission: $0, ssrc: 0x1000, payloadType: 96).header }
            : repairs[0].header
        #expect(repaired.sequenceNumber == 104)
    }

    @Test func theEncoderGetsWhatTheFECLeaves() throws {
        let driver = try SessionDriver(fec: .on)
        driver.send(testFrames([500])[0])
        driver.flush()
        // 1500 kbit/s with one FEC packet for five on delta frames: 1250 for the media.
        #expect(driver.takeCommands().contains(.targetBitrate(kbps: 1250)))
    }

    /// GStreamer's rtpbin and ffmpeg send receiver reports and no transport feedback. With the
    /// stream at its maximum rate, the loss they report moves no rate, and must still bring FEC.
    @Test func lossInReceiverReportsBringsFECThoughNoRateMoves() throws {
        let driver = try SessionDriver(fec: .auto, extensions: HeaderExtensionIDs())
        var frameIndex = 0
        func sendFrames(_ count: Int) -> Int {
            (0..<count).reduce(0) { fecPackets, _ in
                driver.send(encodedFrame(
                    [UInt8](repeating: UInt8(truncatingIfNeeded: frameIndex), count: 3_000),
                    timestampNs: 7_000_000_000 + Int64(frameIndex) * 33_000_000, isKeyframe: frameIndex == 0))
                frameIndex += 1
                driver.advance(byMs: 33)
                return fecPackets + driver.flush().filter { try! WirePacket($0).unwrappedRED?[1] == SessionDriver.ulpfecPayloadType }.count
            }
        }
        // Three packets a frame: media 100–129 after ten frames, 100–189 after thirty.
        #expect(sendFrames(10) == 0, "nothing reported lost yet")
        let senderReport = try #require(driver.report()?.packets.lazy.compactMap { packet -> RTCPSenderReport? in
            if case .senderReport(let report) = packet { report } else { nil }
        }.first)
        let receiverReport = { (lost: Int32, highest: UInt32) in
            RTCPPacket.receiverReport(RTCPReceiverReport(ssrc: 9, reportBlocks: [RTCPReportBlock(
                ssrc: 0x1000, fractionLost: 0, cumulativeLost: lost, extendedHighestSequenceNumber: highest,
                interarrivalJitter: 0, lastSenderReport: senderReport.ntpTimestamp.middle32Bits, delaySinceLastSenderReport: 0)]))
        }
        driver.receive([receiverReport(0, 129)])
        #expect(sendFrames(20) == 0, "a path that loses nothing")
        driver.receive([receiverReport(3, 189)])  // 3 of 60: 5 %
        #expect(driver.takeCommands().contains(.targetBitrate(kbps: 1250)), "the encoder leaves room for the FEC")
        #expect(sendFrames(10) >= 5, "a fifth of the delta frames' packets")
        #expect(driver.lastStatistics?.fecProtection == 0.2)
    }

    @Test func withoutFECAgreedNothingIsWrapped() throws {
        let driver = try SessionDriver()
        driver.send(testFrames([6_000])[0])
        let sent = try driver.flush().map(WirePacket.init)
        #expect(!sent.isEmpty && sent.allSatisfy { $0.header.payloadType == 96 })
    }

    /// Delta frames with `on` at a fifth: with no RTT measured, a group closes as soon as it holds
    /// half an FEC packet's worth, three one-packet frames, so ten small frames bring three FEC
    /// packets (the tenth waits for more) and no frame pays for one alone.
    @Test func smallFramesShareAnFECPacket() throws {
        let driver = try SessionDriver(fec: .on)
        driver.send(testFrames([500])[0])  // a keyframe alone: its own FEC
        var unwrapped = try driver.flush().map { try #require(try WirePacket($0).unwrappedRED) }
        #expect(unwrapped.filter { $0[1] == SessionDriver.ulpfecPayloadType }.count == 1)
        for index in 1...10 {
            driver.advance(byMs: 33)
            driver.send(encodedFrame([UInt8](repeating: UInt8(index), count: 300), timestampNs: 7_000_000_000 + Int64(index) * 33_000_000))
            unwrapped += try driver.flush().map { try #require(try WirePacket($0).unwrappedRED) }
        }
        let fec = unwrapped.filter { $0[1] == SessionDriver.ulpfecPayloadType }
        #expect(fec.count == 1 + 3)
        // The packets of a group's first frames left before its FEC was made.
        // All but the last frame's packet, which waits for more.
        #expect(try Self.expectEachRebuiltAsSent(media: unwrapped.filter { $0[1] & 0x7F == 96 }, fec: fec) == 10)
    }
}

/// How much FEC the hybrid policy asks for.
@Suite struct FECPolicyTests {
    static let ms: Int64 = 1_000_000
    let auto = FECPolicy(mode: .auto)

    @Test func noLossNoFEC() {
        #expect(auto.protection(lossFraction: 0, roundTripTimeNs: 100 * Self.ms, bytesPerFrame: 5_000) == .none)
    }

    /// Groups as large as keep four in five losses repairable: 22 packets at 1 %, 11 at 2 %, 4 at
    /// 5 %, 2 at 10 %; delta frames at most a fifth, keyframes twice the share, at most a half.
    @Test(arguments: [
        (0.01, 1.0 / 22, 2.0 / 22), (0.02, 1.0 / 11, 2.0 / 11), (0.05, 0.2, 0.5), (0.10, 0.2, 0.5), (0.30, 0.2, 0.5),
    ] as [(Double, Double, Double)])
    func theShareKeepsFourInFiveLossesRepairable(loss: Double, delta: Double, key: Double) {
        let protection = auto.protection(lossFraction: loss, roundTripTimeNs: 100 * Self.ms, bytesPerFrame: 5_000)
        #expect(abs(protection.delta - delta) < 1e-9)
        #expect(abs(protection.key - key) < 1e-9)
    }

    @Test func aShortRTTLeavesDeltaFramesToNACK() {
        let protection = auto.protection(lossFraction: 0.05, roundTripTimeNs: 10 * Self.ms, bytesPerFrame: 5_000)
        #expect(protection.delta == 0 && protection.key == 0.5)
    }

    @Test func smallFramesOnAShortPathGetNone() {
        #expect(auto.protection(lossFraction: 0.05, roundTripTimeNs: 100 * Self.ms, bytesPerFrame: 800) == .none)
        #expect(auto.protection(lossFraction: 0.05, roundTripTimeNs: 250 * Self.ms, bytesPerFrame: 800).delta == 0.2)
    }

    @Test func onProtectsEvenWithoutLossOrRTT() {
        #expect(FECPolicy(mode: .on).protection(lossFraction: 0, roundTripTimeNs: 0, bytesPerFrame: 100).delta == 0.2)
        #expect(FECPolicy(mode: .off).protection(lossFraction: 0.2, roundTripTimeNs: 300 * Self.ms, bytesPerFrame: 9_000) == .none)
    }
}
