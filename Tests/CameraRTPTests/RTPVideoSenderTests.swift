import CameraRTP
import Foundation
import MediaCore
import RTCP
import RTP
import TestSupport
import Testing
import Transport

/// What `RTPVideoSender` puts on the wire, read back with our own parsers from sockets that play
/// the receiver: RTP on one port, RTCP on the next.
@Suite struct RTPVideoSenderTests {
    /// Frames of `sizes` bytes, 40 ms apart (25 fps), the first a keyframe, all rotated 90°.
    static func frames(_ sizes: [Int]) -> [EncodedFrame] {
        sizes.enumerated().map { index, size in
            EncodedFrame(
                data: (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }, width: 320, height: 240,
                timestampNs: 7_000_000_000 + Int64(index) * 40_000_000, rotation: .deg90,
                isKeyframe: index == 0, isDroppable: false)
        }
    }

    static func send(_ frames: [EncodedFrame], plan: (Endpoint, Endpoint) -> SessionPlan) throws
        -> (rtp: [[UInt8]], rtcp: [[UInt8]], sender: RTPVideoSender, stats: StatsSnapshot)
    {
        let rtpSocket = try LoopbackSocket(ipv6: false)
        let rtcpSocket = try LoopbackSocket(ipv6: false)
        let sender = try RTPVideoSender(plan: plan(rtpSocket.endpoint, rtcpSocket.endpoint))
        let stats = PipelineStats()
        for frame in frames { try sender.consume(frame, stats: stats) }
        try sender.finish(stats: stats)
        var rtp: [[UInt8]] = []
        while let packet = rtpSocket.receive(timeoutMilliseconds: 200) { rtp.append(packet) }
        var rtcp: [[UInt8]] = []
        while let packet = rtcpSocket.receive(timeoutMilliseconds: 200) { rtcp.append(packet) }
        return (rtp, rtcp, sender, stats.snapshot)
    }

    @Test func packetsCarryTheFramesExactly() throws {
        let frames = Self.frames([3000, 700, 12_345])
        let (rtp, rtcp, sender, stats) = try Self.send(frames) { rtpEnd, rtcpEnd in
            SessionPlan(destination: rtpEnd, rtcpDestination: rtcpEnd, mtu: 1000, fixedSSRC: 0xCAFE_F00D,
                        videoOrientationExtensionID: 13)
        }
        #expect(sender.ssrc == 0xCAFE_F00D)
        #expect(rtp.allSatisfy { $0.count <= 1000 })
        var depacketizer = VP8Depacketizer(videoOrientationExtensionID: 13)
        var received: [VP8Depacketizer.Frame] = []
        var headers: [RTPHeader] = []
        for packet in rtp {
            headers.append(try RTPHeader.parse(prefixOf: packet.withUnsafeBytes { $0 }).header)
            if let frame = try depacketizer.push(packet) { received.append(frame) }
        }
        #expect(received.map(\.data) == frames.map(\.data))
        #expect(headers.allSatisfy { $0.ssrc == 0xCAFE_F00D && $0.payloadType == 96 })
        let sequence = headers.map(\.sequenceNumber)
        #expect(zip(sequence, sequence.dropFirst()).allSatisfy { $1 == $0 &+ 1 })
        #expect(sequence.first! < 1 << 15, "the first sequence number stays below 2^15")
        // 40 ms is exactly 3600 ticks of the 90 kHz clock.
        let timestamps = received.map(\.timestamp)
        #expect(zip(timestamps, timestamps.dropFirst()).allSatisfy { $1 &- $0 == 3600 })
        #expect(received.allSatisfy { $0.videoOrientation?.rotation == .deg90 })
        #expect(stats.packetsSent == rtp.count + rtcp.count)

        let reports = try rtcp.map { try RTCPCompoundPacket(parsing: $0) }
        guard case .senderReport(let last)? = reports.last?.packets.first else {
            Issue.record("the last RTCP packet is not an SR: \(reports)")
            return
        }
        #expect(last.ssrc == 0xCAFE_F00D)
        #expect(Int(last.packetCount) == rtp.count)
        #expect(Int(last.octetCount) == frames.map(\.data.count).reduce(0, +), "RFC 3550 §6.4.1 counts payload octets")
        #expect(reports.last?.packets.contains { if case .bye = $0 { true } else { false } } == true)
    }

    @Test func srtpPacketsUnprotectWithTheKeyInThePlan() throws {
        let key = SRTPMasterKey(randomFor: .aesCM128HMACSHA1_80)
        let frames = Self.frames([5000, 900])
        let (rtp, rtcp, _, _) = try Self.send(frames) { rtpEnd, rtcpEnd in
            SessionPlan(destination: rtpEnd, rtcpDestination: rtcpEnd, srtpKey: key)
        }
        #expect(rtp.allSatisfy { $0.count <= 1200 }, "the MTU includes the 10-byte tag")
        let inbound = try SRTPSession(key: key, direction: .inbound)
        var depacketizer = VP8Depacketizer()
        var received: [[UInt8]] = []
        for var packet in rtp {
            let length = try packet.withUnsafeMutableBytes { try inbound.unprotectRTP($0, length: $0.count) }
            if let frame = try depacketizer.push(Array(packet[..<length])) { received.append(frame.data) }
        }
        #expect(received == frames.map(\.data))
        for var packet in rtcp {
            let length = try packet.withUnsafeMutableBytes { try inbound.unprotectRTCP($0, length: $0.count) }
            #expect(throws: Never.self) { try RTCPCompoundPacket(parsing: Array(packet[..<length])) }
        }
    }
}
