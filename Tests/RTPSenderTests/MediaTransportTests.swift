import Foundation
import MediaCore
import RTCP
import RTP
import RTPSender
import RTPSession
import Synchronization
import TestSupport
import Testing
import Transport

/// A transport in memory, as a WebRTC connection would be: it keeps what the sender sends and
/// hands the sender what the test injects.
final class MemoryTransport: MediaTransport, @unchecked Sendable {
    private let condition = NSCondition()
    private var sent: [[UInt8]] = []
    private var receiver: (@Sendable (UnsafeRawBufferPointer) -> Void)?

    func send(_ datagram: UnsafeRawBufferPointer) -> Bool {
        condition.withLock {
            sent.append(Array(datagram))
            condition.broadcast()
        }
        return true
    }

    func startReceiving(_ receive: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) {
        condition.withLock { receiver = receive }
    }

    /// Delivers `datagram` to the sender as if the peer had sent it.
    func inject(_ datagram: [UInt8]) {
        let receiver = condition.withLock { self.receiver }
        datagram.withUnsafeBytes { receiver?($0) }
    }

    /// Waits until what was sent satisfies `done` (bounded only against a hang) and returns it all.
    func waitForSent(until done: ([[UInt8]]) -> Bool) -> [[UInt8]] {
        condition.withLock {
            let giveUp = TestPatience.deadline
            while !done(sent), condition.wait(until: giveUp) {}
            return sent
        }
    }

    func waitForSent(_ count: Int) -> [[UInt8]] { waitForSent { $0.count >= count } }
}

/// The sender over a transport it did not open: RTP and RTCP on one path, feedback pushed in
/// from another thread, and DTLS-SRTP's separate key for the peer's SRTCP.
@Suite struct MediaTransportTests {
    static func sender(
        _ transport: MemoryTransport, srtpKey: SRTPMasterKey? = nil, feedbackSRTPKey: SRTPMasterKey? = nil
    ) throws -> (RTPVideoSender, RecordingPipeline) {
        let media = RTPSessionParameters(ssrc: 77, initialSequenceNumber: 10, timestampOffset: 0, initialPictureID: 0)
        let configuration = RTPSenderConfiguration(
            route: .transport(transport), srtpKey: srtpKey, feedbackSRTPKey: feedbackSRTPKey,
            session: SendSessionConfiguration(tuning: SenderTuning(mtu: 500), encodings: [EncodingStreams(media: media)]))
        let sender = try RTPVideoSender(configuration: configuration)
        let pipeline = RecordingPipeline()
        sender.attach(encoder: pipeline, reporter: pipeline.reporter)
        #expect(sender.localPorts == nil)
        return (sender, pipeline)
    }

    static func isRTCP(_ datagram: [UInt8]) -> Bool { datagram.count > 1 && (192...223).contains(datagram[1]) }

    @Test func mediaGoesOutAndANACKThroughTheTransportIsAnswered() throws {
        let transport = MemoryTransport()
        let (sender, pipeline) = try Self.sender(transport)
        try sender.consume(testFrames([1500])[0])
        let media = transport.waitForSent(4).filter { !Self.isRTCP($0) }
        #expect(media.count >= 4)
        let lost = try RTPHeader(parsing: media[1]).sequenceNumber
        transport.inject(RTCPCompoundPacket(packets: [
            .genericNACK(RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 77, lostSequenceNumbers: [lost])),
        ]).serialized())
        let afterRepair = transport.waitForSent { sent in sent.filter { $0 == media[1] }.count == 2 }
        #expect(afterRepair.filter { $0 == media[1] }.count == 2, "the packet went out again, unchanged")
        try sender.finish()
        #expect(pipeline.statistics?.packetsRetransmitted == 1)
    }

    /// DTLS-SRTP: the peer protects its SRTCP with its own key; feedback under our key (or none) is refused.
    @Test func feedbackMustAuthenticateUnderThePeersKey() throws {
        let ours = SRTPMasterKey(randomFor: .aesCM128HMACSHA1_80)
        let theirs = SRTPMasterKey(randomFor: .aesCM128HMACSHA1_80)
        let transport = MemoryTransport()
        let (sender, pipeline) = try Self.sender(transport, srtpKey: ours, feedbackSRTPKey: theirs)
        try sender.consume(testFrames([300])[0])
        _ = transport.waitForSent(1)
        let report = RTCPCompoundPacket(packets: [.receiverReport(RTCPReceiverReport(ssrc: 1, reportBlocks: []))]).serialized()
        for key in [theirs, ours] {
            var packet = report + [UInt8](repeating: 0, count: SRTPSession.maximumTrailerLength)
            let length = try packet.withUnsafeMutableBytes { try SRTPSession(key: key, direction: .outbound).protectRTCP($0, length: report.count) }
            transport.inject(Array(packet[..<length]))
        }
        transport.inject(report)
        try sender.finish()
        let statistics = try #require(pipeline.statistics)
        #expect(statistics.rtcpReceived.rr == 1, "only the report under the peer's key counts")
        #expect(statistics.rtcpReceived.rejected == 2)
    }
}
