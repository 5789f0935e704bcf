import CongestionControl
import MediaCore
import Pacing
import RTCP
import RTP
import RTPSender
import RTPSession
import Synchronization
import TestSupport
import Testing
import Transport

/// Records what a sender asks of the encoder and reports to the pipeline.
final class RecordingPipeline: EncoderControl, Sendable {
    private struct State {
        var keyframeRequests = 0
        /// The encoding of each request, in order; nil for one of every encoding.
        var keyframeEncodings: [Int?] = []
        var targets: [Int] = []
        var events: [SinkEvent] = []
        var congestion: [Bool] = []
    }

    private let state = Mutex(State())
    private let changed = ThreadCondition()

    var reporter: SinkReporter {
        SinkReporter { [self] event in record { $0.events.append(event) } }
    }

    func requestKeyframe() { record { $0.keyframeRequests += 1; $0.keyframeEncodings.append(nil) } }
    func requestKeyframe(encodingIndex: Int) { record { $0.keyframeRequests += 1; $0.keyframeEncodings.append(encodingIndex) } }
    func setTargetBitrate(kbps: Int) { record { $0.targets.append(kbps) } }
    func setNetworkCongested(_ congested: Bool) { record { $0.congestion.append(congested) } }

    var keyframeRequests: Int { state.withLock { $0.keyframeRequests } }
    var keyframeEncodings: [Int?] { state.withLock { $0.keyframeEncodings } }
    var events: [SinkEvent] { state.withLock { $0.events } }
    var targets: [Int] { state.withLock { $0.targets } }
    /// Each pause (true) and resumption (false) of the encoder for congestion, in order.
    var congestion: [Bool] { state.withLock { $0.congestion } }

    /// Waits until `condition` holds, reading the properties above; false if it never did.
    func waitUntil(_ condition: () -> Bool) -> Bool {
        let deadlineNs = TestPatience.deadlineNs
        return changed.withLock {
            while !condition() {
                guard changed.wait(untilNs: deadlineNs) else { return condition() }
            }
            return true
        }
    }

    private func record(_ change: (inout State) -> Void) {
        state.withLock { change(&$0) }
        changed.withLock { changed.broadcast() }
    }

    /// The sender's last statistics report.
    var statistics: SenderStatistics? {
        events.reversed().lazy.compactMap { event -> SenderStatistics? in
            if case .statistics(let statistics) = event { return statistics }
            return nil
        }.first
    }
}

/// A receiver played by two loopback sockets, RTP on one and RTCP on the other, talking to a real
/// `RTPVideoSender` over UDP.
struct PlayedReceiver {
    let rtp: LoopbackSocket
    let rtcp: LoopbackSocket
    let pipeline = RecordingPipeline()
    let sender: RTPVideoSender

    init(_ configure: (inout RTPSenderConfiguration) -> Void = { _ in }) throws {
        rtp = try LoopbackSocket(ipv6: false)
        rtcp = try LoopbackSocket(ipv6: false)
        let media = RTPSessionParameters(ssrc: 0xCAFE_F00D, initialSequenceNumber: 100, timestampOffset: 0, initialPictureID: 5)
        var configuration = RTPSenderConfiguration(
            route: .udp(destination: rtp.endpoint, rtcpDestination: rtcp.endpoint, localPort: 0),
            session: SendSessionConfiguration(encodings: [EncodingStreams(media: media)]))
        configure(&configuration)
        sender = try RTPVideoSender(configuration: configuration)
        sender.attach(encoder: pipeline, reporter: pipeline.reporter)
    }

    /// RTP packets until `frames` frames have ended (marker bit), waiting for the stream itself.
    func receiveFrames(_ frames: Int) -> [[UInt8]] {
        var packets: [[UInt8]] = []
        var ended = 0
        while ended < frames, let packet = rtp.receive(timeoutMilliseconds: TestPatience.milliseconds) {
            packets.append(packet)
            if let header = try? RTPHeader(parsing: packet), header.marker { ended += 1 }
        }
        return packets
    }

    /// Sends RTCP to the sender's RTCP port from the address the sender sends its RTCP to.
    func sendFeedback(_ packets: [RTCPPacket]) throws {
        try rtcp.send(RTCPCompoundPacket(packets: packets).serialized(), toPort: sender.localPorts!.rtcp)
    }

    /// RTCP the sender sent, until it sends BYE.
    func reportsUntilBye() throws -> [RTCPCompoundPacket] {
        var reports: [RTCPCompoundPacket] = []
        while let datagram = rtcp.receive(timeoutMilliseconds: TestPatience.milliseconds) {
            let report = try RTCPCompoundPacket(parsing: datagram)
            reports.append(report)
            if report.packets.contains(where: { if case .bye = $0 { true } else { false } }) { break }
        }
        return reports
    }
}

@Suite(.serialized) struct RTPVideoSenderWireTests {
    @Test func packetsCarryTheFramesExactlyAndReportsCountThem() throws {
        let receiver = try PlayedReceiver {
            $0.session.tuning.mtu = 1000
            $0.session.extensions = HeaderExtensionIDs(videoOrientation: 13, transportWideSequenceNumber: 3)
        }
        let frames = testFrames([3000, 700, 12_345], rotation: .deg90)
        for frame in frames { try receiver.sender.consume(frame) }
        let rtp = receiver.receiveFrames(3)
        try receiver.sender.finish()
        let reports = try receiver.reportsUntilBye()

        #expect(rtp.allSatisfy { $0.count <= 1000 })
        var depacketizer = VP8Depacketizer(videoOrientationExtensionID: 13)
        var received: [VP8Depacketizer.Frame] = []
        var headers: [RTPHeader] = []
        for packet in rtp {
            headers.append(try RTPHeader(parsing: packet))
            if let frame = try depacketizer.push(packet) { received.append(frame) }
        }
        #expect(received.map(\.data) == frames.map(\.data))
        #expect(headers.allSatisfy { $0.ssrc == 0xCAFE_F00D && $0.payloadType == 96 })
        #expect(headers.map(\.sequenceNumber) == (0..<UInt16(rtp.count)).map { 100 + $0 })
        let timestamps = received.map(\.timestamp)
        #expect(zip(timestamps, timestamps.dropFirst()).allSatisfy { $1 &- $0 == 3600 }, "40 ms is 3600 ticks of 90 kHz")
        #expect(received.allSatisfy { $0.videoOrientation?.rotation == .deg90 })
        // Every packet carries its own transport-wide sequence number, in send order.
        let transportNumbers = try headers.map { header -> UInt16 in
            let element = try #require(header.extensionElements.first { $0.id == 3 })
            return try TransportWideSequenceNumber(element: element).value
        }
        #expect(zip(transportNumbers, transportNumbers.dropFirst()).allSatisfy { $1 == $0 &+ 1 })

        guard case .senderReport(let last)? = reports.last?.packets.first else {
            Issue.record("the last RTCP packet is not an SR: \(reports)")
            return
        }
        #expect(last.ssrc == 0xCAFE_F00D)
        #expect(Int(last.packetCount) == rtp.count)
        #expect(Int(last.octetCount) == rtp.reduce(0) { $0 + $1.count } - headers.reduce(0) { $0 + $1.serializedSize },
                "RFC 3550 §6.4.1 counts payload octets")
    }

    @Test func srtpPacketsUnprotectWithTheSessionKey() throws {
        let key = SRTPMasterKey(randomFor: .aesCM128HMACSHA1_80)
        let receiver = try PlayedReceiver { $0.srtpKey = key }
        let frames = testFrames([5000, 900])
        for frame in frames { try receiver.sender.consume(frame) }
        let rtp = receiver.receiveFrames(2)
        try receiver.sender.finish()
        let inbound = try SRTPSession(key: key, direction: .inbound)
        var depacketizer = VP8Depacketizer()
        var received: [[UInt8]] = []
        #expect(rtp.allSatisfy { $0.count <= 1200 }, "the MTU includes the 10-byte tag")
        for var packet in rtp {
            let length = try packet.withUnsafeMutableBytes { try inbound.unprotectRTP($0, length: $0.count) }
            if let frame = try depacketizer.push(Array(packet[..<length])) { received.append(frame.data) }
        }
        #expect(received == frames.map(\.data))
    }

    /// RFC 4585 §6.2.1: the NACKed packet comes again, unchanged on the media SSRC.
    @Test func aNACKedPacketIsResent() throws {
        let receiver = try PlayedReceiver { $0.session.tuning.mtu = 500 }
        try receiver.sender.consume(testFrames([2000])[0])
        let original = receiver.receiveFrames(1)
        #expect(original.count == 5)
        let lost = try RTPHeader(parsing: original[2]).sequenceNumber
        try receiver.sendFeedback([.genericNACK(RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 0xCAFE_F00D, lostSequenceNumbers: [lost]))])
        let repaired = try #require(receiver.rtp.receive(timeoutMilliseconds: TestPatience.milliseconds))
        #expect(repaired == original[2])
        try receiver.sender.finish()
        let statistics = try #require(receiver.pipeline.statistics)
        #expect(statistics.rtcpReceived.nack == 1)
        #expect(statistics.nackedPackets == 1)
        #expect(statistics.packetsRetransmitted == 1)
    }

    /// RFC 4588 §4: the repair travels on its own SSRC and payload type, the original sequence
    /// number first, its own sequence numbers one by one.
    @Test func withRTXTheRepairIsAnRTXPacket() throws {
        let receiver = try PlayedReceiver {
            $0.session.tuning.mtu = 500
            $0.session.tuning.retransmission = .rtx
            $0.session.rtxPayloadType = 97
            $0.session.encodings[0].rtxSSRC = 0xBEEF
        }
        try receiver.sender.consume(testFrames([2000])[0])
        let original = receiver.receiveFrames(1)
        let lost = try original[1...2].map { try RTPHeader(parsing: $0).sequenceNumber }
        try receiver.sendFeedback([.genericNACK(RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 0xCAFE_F00D, lostSequenceNumbers: lost))])
        var repairs: [[UInt8]] = []
        while repairs.count < 2, let packet = receiver.rtp.receive(timeoutMilliseconds: TestPatience.milliseconds) { repairs.append(packet) }
        try receiver.sender.finish()
        let headers = try repairs.map { try RTPHeader(parsing: $0) }
        #expect(headers.allSatisfy { $0.ssrc == 0xBEEF && $0.payloadType == 97 })
        #expect(headers[1].sequenceNumber == headers[0].sequenceNumber &+ 1)
        for (repair, originalPacket) in zip(repairs, original[1...2]) {
            let restored = try repair.withUnsafeBytes { try RTXPacket.original(ofRetransmission: $0, ssrc: 0xCAFE_F00D, payloadType: 96) }
            #expect(restored.serialized() == originalPacket)
        }
    }

    /// A PLI reaches the encoder; a flood of them within 300 ms collapses into one more.
    @Test func pictureLossBringsAKeyframeRequestAndAFloodIsThrottled() throws {
        let receiver = try PlayedReceiver()
        try receiver.sender.consume(testFrames([900])[0])
        _ = receiver.receiveFrames(1)
        let pli = RTCPPacket.pictureLossIndication(RTCPPictureLossIndication(senderSSRC: 1, mediaSSRC: 0xCAFE_F00D))
        for _ in 0..<50 { try receiver.sendFeedback([pli]) }
        // Feedback is read in order: a report after the flood shows when all of it was handled.
        try receiver.sendFeedback([.receiverReport(RTCPReceiverReport(ssrc: 1, reportBlocks: []))])
        try receiver.sender.finish()
        let statistics = try #require(receiver.pipeline.statistics)
        #expect(statistics.rtcpReceived.pli == 50)
        #expect(statistics.rtcpReceived.rr == 1)
        #expect((1...2).contains(receiver.pipeline.keyframeRequests), "\(receiver.pipeline.keyframeRequests) requests forwarded")
        #expect(statistics.keyframesOnRequest == receiver.pipeline.keyframeRequests)
    }

    /// With two encodings, a PLI on the second one's SSRC asks the encoder for a keyframe in
    /// that encoding alone, not in every encoding.
    @Test func pictureLossOnOneEncodingAsksForThatEncodingsKeyframe() throws {
        let receiver = try PlayedReceiver {
            $0.session.encodings.append(EncodingStreams(
                media: RTPSessionParameters(ssrc: 0x5EC0_0001, initialSequenceNumber: 700, timestampOffset: 0, initialPictureID: 9)))
        }
        var frames = testFrames([300, 900])
        frames[1].encodingIndex = 1
        frames[1].isKeyframe = true
        frames[1].timestampNs = frames[0].timestampNs
        for frame in frames { try receiver.sender.consume(frame) }
        _ = receiver.receiveFrames(2)
        try receiver.sendFeedback([.pictureLossIndication(RTCPPictureLossIndication(senderSSRC: 1, mediaSSRC: 0x5EC0_0001))])
        try receiver.sendFeedback([.receiverReport(RTCPReceiverReport(ssrc: 1, reportBlocks: []))])
        try receiver.sender.finish()
        #expect(try #require(receiver.pipeline.statistics).rtcpReceived.pli == 1)
        #expect(receiver.pipeline.keyframeEncodings == [1])
    }

    /// Datagrams from a host other than the receiver's, and garbage from the receiver, are
    /// counted as rejected and change nothing.
    @Test func foreignAndMalformedFeedbackIsRejected() throws {
        let receiver = try PlayedReceiver()
        try receiver.sender.consume(testFrames([900])[0])
        _ = receiver.receiveFrames(1)
        let stranger = try LoopbackSocket(ipv6: false, otherHost: true)
        let pli = RTCPCompoundPacket(packets: [.pictureLossIndication(RTCPPictureLossIndication(senderSSRC: 1, mediaSSRC: 0xCAFE_F00D))])
        for _ in 0..<3 { try stranger.send(pli.serialized(), toPort: receiver.sender.localPorts!.rtcp) }
        try receiver.rtcp.send([0x80, 0xC9, 0x00, 0x09, 1, 2, 3], toPort: receiver.sender.localPorts!.rtcp)
        try receiver.rtcp.send([0x13, 0x37], toPort: receiver.sender.localPorts!.rtcp)
        try receiver.sendFeedback([.receiverReport(RTCPReceiverReport(ssrc: 1, reportBlocks: []))])
        try receiver.sender.finish()
        let statistics = try #require(receiver.pipeline.statistics)
        #expect(statistics.rtcpReceived.rejected == 5)
        #expect(statistics.rtcpReceived.pli == 0)
        #expect(receiver.pipeline.keyframeRequests == 0)
    }

    /// The encoder pauses while more than the congestion window is in flight. If feedback never
    /// covers the last packets (lost at the tail of a full queue), the pacer's keep-alive, the
    /// newest packet again with the next transport-wide number, brings feedback that reopens the
    /// window. It goes even with retransmission off, where no other copy ever does.
    @Test func aKeepAliveBringsTheFeedbackThatResumesAPausedEncoder() throws {
        let receiver = try PlayedReceiver {
            $0.session.extensions = HeaderExtensionIDs(transportWideSequenceNumber: 3)
            $0.session.tuning.retransmission = .off
            $0.session.tuning.congestionControl = CongestionControllerConfiguration(startBitrateBps: 300_000, isProbingEnabled: false)
        }
        func transportNumber(_ packet: [UInt8]) throws -> UInt16 {
            let element = try #require(try RTPHeader(parsing: packet).extensionElements.first { $0.id == 3 })
            return try TransportWideSequenceNumber(element: element).value
        }
        func feedback(received number: UInt16, count: UInt8) throws -> RTCPPacket {
            .transportWideFeedback(try RTCPTransportWideFeedback(
                senderSSRC: 1, mediaSSRC: 0xCAFE_F00D, feedbackPacketCount: count,
                packets: [.init(sequenceNumber: number, receiveTimeUs: 1_000_000)]))
        }
        let frames = testFrames([1000, 30_000])
        // The first packet's feedback gives the RTT, hence a window of about 300 kbit/s × 350 ms.
        try receiver.sender.consume(frames[0])
        let first = receiver.receiveFrames(1)
        try receiver.sendFeedback([feedback(received: try transportNumber(first[0]), count: 0)])
        // 30 kB more than fill it; no feedback reports them.
        try receiver.sender.consume(frames[1])
        let second = receiver.receiveFrames(1)
        #expect(receiver.pipeline.waitUntil { receiver.pipeline.congestion == [true] })
        let keepAlive = try #require(receiver.rtp.receive(timeoutMilliseconds: TestPatience.milliseconds))
        let newest = try #require(second.last)
        #expect(try RTPHeader(parsing: keepAlive).sequenceNumber == RTPHeader(parsing: newest).sequenceNumber)
        #expect(try transportNumber(keepAlive) == transportNumber(newest) &+ 1)
        try receiver.sendFeedback([feedback(received: try transportNumber(keepAlive), count: 1)])
        #expect(receiver.pipeline.waitUntil { receiver.pipeline.congestion == [true, false] })
        try receiver.sender.finish()
    }

    /// The start-up probes ride on the first keyframe, before any feedback (padding would reach
    /// receivers that send none). Received at 320 kbit/s, they bring a 2.5 Mbit/s start down to
    /// the path with the first feedback, instead of after a second of overuse.
    @Test func theStartUpProbesUseTheFirstKeyframe() throws {
        let receiver = try PlayedReceiver {
            $0.session.extensions = HeaderExtensionIDs(transportWideSequenceNumber: 3)
            $0.session.tuning.congestionControl = CongestionControllerConfiguration(startBitrateBps: 2_500_000, maxBitrateBps: 2_500_000)
            // What is tested is which packets carry the probes, not the send thread's punctuality:
            // a busy machine may wake it more than the default 10 ms late and drop the cluster.
            $0.session.tuning.pacing = PacerConfiguration(probeMaxDelayNs: 10_000_000_000)
        }
        try receiver.sender.consume(testFrames([24_000])[0])
        let keyframe = receiver.receiveFrames(1)
        let numbers = try keyframe.map { packet -> UInt16 in
            let element = try #require(try RTPHeader(parsing: packet).extensionElements.first { $0.id == 3 })
            return try TransportWideSequenceNumber(element: element).value
        }
        // 1200-byte packets 30 ms apart: a 320 kbit/s bottleneck, well below the probe's 2.5 Mbit/s
        // even if the probe left late (a receive rate over twice the send rate is discarded).
        let arrivals = numbers.enumerated().map { index, number in
            RTCPTransportWideFeedback.PacketResult(sequenceNumber: number, receiveTimeUs: 1_000_000 + Int64(index) * 30_000)
        }
        try receiver.sendFeedback([.transportWideFeedback(try RTCPTransportWideFeedback(
            senderSSRC: 1, mediaSSRC: 0xCAFE_F00D, feedbackPacketCount: 0, packets: arrivals))])
        #expect(receiver.pipeline.waitUntil { (receiver.pipeline.targets.last ?? .max) < 400 },
                "encoder targets \(receiver.pipeline.targets) kbit/s")
        try receiver.sender.finish()
        let statistics = try #require(receiver.pipeline.statistics)
        #expect(statistics.probesSent == 10, "two clusters of five packets")
    }

    /// RFC 3550 §6.4.1: a receiver report echoing our SR (LSR) with its delay (DLSR) gives the RTT.
    @Test func aReceiverReportGivesTheRoundTripTime() throws {
        let receiver = try PlayedReceiver()
        try receiver.sender.consume(testFrames([900])[0])
        _ = receiver.receiveFrames(1)
        let datagram = try #require(receiver.rtcp.receive(timeoutMilliseconds: TestPatience.milliseconds))
        guard case .senderReport(let report)? = try RTCPCompoundPacket(parsing: datagram).packets.first else {
            Issue.record("the first RTCP is not an SR")
            return
        }
        let block = RTCPReportBlock(
            ssrc: 0xCAFE_F00D, fractionLost: 64, cumulativeLost: 3, extendedHighestSequenceNumber: 100,
            interarrivalJitter: 0, lastSenderReport: report.ntpTimestamp.middle32Bits, delaySinceLastSenderReport: 0)
        try receiver.sendFeedback([.receiverReport(RTCPReceiverReport(ssrc: 1, reportBlocks: [block]))])
        try receiver.sender.finish()
        let statistics = try #require(receiver.pipeline.statistics)
        let rtt = try #require(statistics.rttMs)
        #expect(rtt.last >= 1, "at least the 1 ms floor")
        #expect(statistics.receiverFractionLost == 0.25)
    }
}
