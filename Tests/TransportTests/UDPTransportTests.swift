import Glibc
import RTP
import TestSupport
import Testing
import Transport

/// Packet `index` of a test batch: distinct length and contents so reordering or mixing shows.
private func testPacket(_ index: Int) -> [UInt8] {
    (0..<(100 + index * 7)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
}

private func fill(_ batch: RTPPacketBatch, count: Int) {
    batch.removeAll()
    for index in 0..<count {
        testPacket(index).withUnsafeBytes { batch.append(copying: $0) }
    }
}

@Suite("UDP transport over loopback", .serialized)
struct UDPTransportTests {
    @Test(arguments: [false, true])
    func batchArrivesInOrderWithExactBytes(ipv6: Bool) throws {
        let receiver = try LoopbackSocket(ipv6: ipv6)
        let transport = try UDPTransport(remote: receiver.endpoint)
        #expect(transport.local.family == (ipv6 ? .ipv6 : .ipv4))
        let batch = RTPPacketBatch(slotCapacity: 1200)
        fill(batch, count: 40)

        #expect(transport.send(batch) == 40)
        #expect(transport.statistics.sendCalls == 1)
        #expect(transport.statistics.packetsSent == 40)
        #expect(transport.statistics.bytesSent == UInt64((0..<40).reduce(0) { $0 + testPacket($1).count }))
        for index in 0..<40 {
            #expect(receiver.receive() == testPacket(index), "packet \(index)")
        }
        #expect(receiver.receive(timeoutMilliseconds: 50) == nil)
    }

    /// The kernel takes at most UIO_MAXIOV (1024) messages per sendmmsg; the rest go in a second call.
    @Test func batchLargerThanOneCallIsFinished() throws {
        let receiver = try LoopbackSocket(ipv6: false)
        let transport = try UDPTransport(remote: receiver.endpoint)
        let batch = RTPPacketBatch(slotCapacity: 16)
        for index in 0..<1_500 {
            withUnsafeBytes(of: UInt32(index).bigEndian) { batch.append(copying: $0) }
        }
        #expect(transport.send(batch) == 1_500)
        #expect(transport.statistics.sendCalls == 2)
        #expect(transport.statistics.packetsDropped == 0)
        #expect(transport.reservedPackets >= 1_500)
    }

    @Test(arguments: [false, true])
    func receiverNotListeningIsCountedAndSendingGoesOn(ipv6: Bool) throws {
        let port: UInt16
        do {
            let probe = try LoopbackSocket(ipv6: ipv6)
            port = probe.endpoint.port
        }
        let closedPort = try Endpoint(parsing: ipv6 ? "[::1]:\(port)" : "127.0.0.1:\(port)")
        let transport = try UDPTransport(remote: closedPort)
        let batch = RTPPacketBatch(slotCapacity: 1200)
        fill(batch, count: 3)
        for _ in 0..<6 {
            _ = transport.send(batch)
            usleep(2_000)
        }
        let statistics = transport.statistics
        #expect(statistics.connectionRefused > 0)
        #expect(statistics.packetsSent + statistics.packetsDropped == 18)
        #expect(statistics.otherErrors == 0)

        // The receiver starts late: what is sent from then on arrives.
        let receiver = try LoopbackSocket(ipv6: ipv6, port: port)
        #expect(transport.send(batch) == 3)
        for index in 0..<3 {
            #expect(receiver.receive() == testPacket(index))
        }
    }

    @Test func steadySendingKeepsItsStorage() throws {
        let receiver = try LoopbackSocket(ipv6: false)
        let transport = try UDPTransport(remote: receiver.endpoint, reservedPackets: 32)
        let batch = RTPPacketBatch(slotCapacity: 1200, initialSlotCount: 32)
        for _ in 0..<50 {
            fill(batch, count: 20)
            transport.send(batch)
            while receiver.receive(timeoutMilliseconds: 0) != nil {}
        }
        #expect(transport.reservedPackets == 32)
        #expect(batch.slotCount == 32)

        fill(batch, count: 70)
        transport.send(batch)
        let grownTransport = transport.reservedPackets
        let grownBatch = batch.slotCount
        #expect(grownTransport >= 70 && grownBatch >= 70)
        for _ in 0..<20 {
            fill(batch, count: 70)
            transport.send(batch)
            while receiver.receive(timeoutMilliseconds: 0) != nil {}
        }
        #expect(transport.reservedPackets == grownTransport)
        #expect(batch.slotCount == grownBatch)
        #expect(transport.statistics.packetsSent == 50 * 20 + 21 * 70)
    }

    @Test func receivesWithoutBlockingFromThePeer() throws {
        let peer = try LoopbackSocket(ipv6: false)
        let transport = try UDPTransport(remote: peer.endpoint)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1500, alignment: 8)
        defer { buffer.deallocate() }

        #expect(try transport.receive(into: buffer) == nil)
        #expect(try transport.waitUntilReadable(timeoutMilliseconds: 10) == false)
        let report: [UInt8] = [0x81, 0xC9, 0x00, 0x07] + [UInt8](repeating: 0xAB, count: 28)
        try peer.send(report, toPort: transport.local.port)
        #expect(try transport.waitUntilReadable(timeoutMilliseconds: 1_000))
        let length = try #require(try transport.receive(into: buffer))
        #expect(Array(buffer[..<length]) == report)
        #expect(transport.statistics.packetsReceived == 1)
    }

    @Test func rtcpTransportUsesTheNextPort() throws {
        let receiver = try LoopbackSocket(ipv6: false)
        let rtp = try UDPTransport(remote: receiver.endpoint.with(port: receiver.endpoint.port & ~1))
        let rtcp = try rtp.makeRTCPTransport()
        #expect(rtcp.remote.port == rtp.remote.port + 1)
        #expect(rtcp.remote.address == "127.0.0.1")
        let explicit = try rtp.makeRTCPTransport(rtcpRemote: receiver.endpoint)
        #expect(explicit.remote == receiver.endpoint)
    }

    /// A datagram over the IPv4 limit (65,507 payload bytes) fails alone; its neighbours still go.
    @Test func oversizedPacketIsDroppedAndCountedAlone() throws {
        let receiver = try LoopbackSocket(ipv6: false)
        let transport = try UDPTransport(remote: receiver.endpoint)
        #expect(transport.sendBufferBytes > 0)
        let batch = RTPPacketBatch(slotCapacity: 70_000)
        for length in [10, 70_000, 20] {
            batch.append { (slot: UnsafeMutableRawBufferPointer) -> Int in
                slot.initializeMemory(as: UInt8.self, repeating: UInt8(length & 0xFF))
                return length
            }
        }
        #expect(transport.send(batch) == 2)
        #expect(transport.statistics.messageTooLong == 1)
        #expect(transport.statistics.packetsDropped == 1)
        #expect(receiver.receive() == [UInt8](repeating: 10, count: 10))
        #expect(receiver.receive() == [UInt8](repeating: 20, count: 20))
    }

    @Test func noRTCPPortAfter65535() throws {
        let transport = try UDPTransport(remote: Endpoint(parsing: "127.0.0.1:65535"))
        #expect {
            try transport.makeRTCPTransport()
        } throws: { error in
            "\(error)" == "SocketError: choosing the RTCP port (RTP port + 1) for 127.0.0.1:65535 failed: "
                + "Invalid argument (errno 22)"
        }
    }

    @Test func singleDatagramSend() throws {
        let receiver = try LoopbackSocket(ipv6: true)
        let transport = try UDPTransport(remote: receiver.endpoint)
        let packet: [UInt8] = [0x80, 0xC8, 0x00, 0x06, 1, 2, 3, 4]
        #expect(packet.withUnsafeBytes { transport.send($0) })
        #expect(receiver.receive() == packet)
    }
}
