import Foundation
import MediaCore
import SDP
import TestSupport
import Testing
import Transport
import WebRTC

/// Figures, not checks: how long an in-process offer/answer takes to connect over 127.0.0.1, and
/// the per-packet cost and heap allocations of the WebRTC way out (SRTP, then the connection's
/// `send` into libnice) beside the plain one (SRTP, then a UDP socket of our own). Runs only with
/// CAMRTP_WEBRTC_MEASURE=1; for allocations preload Tests/Tools/thread_malloc_count.c:
///
///     gcc -shared -fPIC -O2 -o .build/thread_malloc_count.so Tests/Tools/thread_malloc_count.c
///     CAMRTP_WEBRTC_MEASURE=1 LD_PRELOAD=.build/thread_malloc_count.so swift test --skip-build --filter WebRTCMeasurements
@Suite("WebRTC: measurements", .serialized, .enabled(if: ProcessInfo.processInfo.environment["CAMRTP_WEBRTC_MEASURE"] == "1"))
struct WebRTCMeasurements {
    static let options = WebRTCTransportOptions(localAddresses: ["127.0.0.1"])

    @Test func timeToConnect() async throws {
        var gatherMs: [Double] = [], iceMs: [Double] = [], dtlsMs: [Double] = [], totalMs: [Double] = []
        for _ in 0..<20 {
            let start = MonotonicClock.nowNs()
            let sender = try await WebRTCVideoSender.offering(configuration: WebRTCSenderConfiguration(transport: Self.options))
            gatherMs.append(Double(MonotonicClock.nowNs() - start) / 1e6)
            let receiver = try await TestReceiver(offer: sender.localDescription, options: Self.options)
            try sender.acceptAnswer(receiver.answer)
            try await sender.waitUntilConnected()
            totalMs.append(Double(MonotonicClock.nowNs() - start) / 1e6)
            let timeline = sender.statistics.connection.timeline
            iceMs.append(timeline.iceMs ?? .nan)
            dtlsMs.append(timeline.dtlsMs ?? .nan)
            sender.close()
            receiver.close()
        }
        print("WebRTC offer/answer over 127.0.0.1, 20 runs, medians: gather + offer \(gatherMs.median) ms, ICE \(iceMs.median) ms, DTLS \(dtlsMs.median) ms; offering to connected \(totalMs.median) ms (p90 \(totalMs.percentile(0.9)) ms)")
    }

    @Test func perPacketCost() async throws {
        let sender = try await WebRTCVideoSender.offering(configuration: WebRTCSenderConfiguration(transport: Self.options))
        let receiver = try await TestReceiver(offer: sender.localDescription, options: Self.options)
        try sender.acceptAnswer(receiver.answer)
        try await sender.waitUntilConnected()
        let keys = try #require(sender.connection.srtpKeys)
        let sink = try LoopbackSocket(ipv6: false)
        let plain = UncheckedTransport(transport: try UDPTransport(remote: sink.endpoint))
        let count = 100_000
        let connection = sender.connection

        // The negotiated suite, and AES-CM as well, whose libsrtp2 path differs (GCM runs through OpenSSL's EVP).
        for key in [keys.outbound, SRTPMasterKey(randomFor: .aesCM128HMACSHA1_80)] {
            let suite = key.suite.sdpName
            let protectOnly = try await Self.timeSends(count: count, key: key) { _ in true }
            let webRTC = try await Self.timeSends(count: count, key: key) { connection.send($0) }
            let udp = try await Self.timeSends(count: count, key: key) { plain.transport.send($0) }
            print("\(suite), 1200-byte packets, \(count) each (debug build): SRTP protect alone \(Int(protectOnly.nsEach)) ns; "
                + "protect + WebRTC connection send \(Int(webRTC.nsEach)) ns (\(webRTC.sent) sent); protect + plain UDP send \(Int(udp.nsEach)) ns (\(udp.sent) sent)")
            if let protect = protectOnly.allocations, let viaWebRTC = webRTC.allocations, let viaUDP = udp.allocations {
                print("\(suite) heap allocations per packet on the sending thread: protect alone \(Self.perPacket(protect, count)), "
                    + "WebRTC \(Self.perPacket(viaWebRTC, count)), plain \(Self.perPacket(viaUDP, count))")
            } else {
                print("allocations not counted (no LD_PRELOAD of thread_malloc_count.so)")
            }
        }
        sender.close()
        receiver.close()
    }

    static func perPacket(_ allocations: UInt, _ count: Int) -> String {
        DecimalText.fixed(Double(allocations) / Double(count), decimals: 2)
    }

    /// Protects a 1200-byte RTP packet (a new sequence number each time) and sends it, `count`
    /// times, on a thread of ours, as the send thread does.
    static func timeSends(
        count: Int, key: SRTPMasterKey, send: @escaping @Sendable (UnsafeRawBufferPointer) -> Bool
    ) async throws -> (sent: Int, nsEach: Double, allocations: UInt?) {
        let session = try SRTPSession(key: key, direction: .outbound)
        let countAllocations = AllocationCount.verifiedFunction
        let box = UncheckedSession(session: session)
        return await MediaThread.run(name: "test.send") {
            let plainLength = 1_200 - key.suite.rtpAuthenticationTagLength
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1_200 + SRTPSession.maximumTrailerLength, alignment: 16)
            defer { buffer.deallocate() }
            let template = UnsafeMutableRawBufferPointer.allocate(byteCount: plainLength, alignment: 16)
            defer { template.deallocate() }
            template.initializeMemory(as: UInt8.self, repeating: 0xA5)
            template[0] = 0x80
            template[1] = 96
            func one(_ sequence: Int) -> Bool {
                UnsafeMutableRawBufferPointer(rebasing: buffer[0..<plainLength]).copyMemory(from: UnsafeRawBufferPointer(template))
                buffer[2] = UInt8(truncatingIfNeeded: sequence >> 8)
                buffer[3] = UInt8(truncatingIfNeeded: sequence)
                guard let length = try? box.session.protectRTP(buffer, length: plainLength) else { return false }
                return send(UnsafeRawBufferPointer(rebasing: buffer[0..<length]))
            }
            for sequence in 0..<100 { _ = one(sequence) }  // warm-up
            let allocationsBefore = countAllocations?()
            let start = MonotonicClock.nowNs()
            var sent = 0
            for sequence in 100..<(100 + count) where one(sequence) { sent += 1 }
            let elapsed = MonotonicClock.nowNs() - start
            let allocations = countAllocations.flatMap { counter in allocationsBefore.map { counter() - $0 } }
            return (sent, Double(elapsed) / Double(count), allocations)
        }
    }

    /// Used by one thread at a time: handed to the measuring thread and back.
    struct UncheckedSession: @unchecked Sendable {
        let session: SRTPSession
    }

    struct UncheckedTransport: @unchecked Sendable {
        let transport: UDPTransport
    }
}
