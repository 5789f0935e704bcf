import DTLS
import Logging
import MediaCore
import TestSupport
import Testing
import Transport

private let bothSuites: [SRTPSuite] = [.aeadAES128GCM, .aesCM128HMACSHA1_80]

@Suite("DTLS-SRTP handshake in memory")
struct DTLSHandshakeTests {
    @Test func completesAndExportsTheSameKeysCrosswise() throws {
        let link = try InMemoryLink()
        link.handshake()

        #expect(link.client.state == .connected)
        #expect(link.server.state == .connected)
        #expect(link.clientEvents.filter(\.isConnected).count == 1)
        #expect(link.serverEvents.filter(\.isConnected).count == 1)
        let client = try #require(link.clientKeys)
        let server = try #require(link.serverKeys)
        #expect(client.suite == .aeadAES128GCM)
        #expect(client.outbound == server.inbound)
        #expect(client.inbound == server.outbound)
        #expect(client.outbound != client.inbound)
        #expect(link.clientEvents.contains(.connected(client)))
        // Every datagram fits the ICE MTU, and nothing waits to be resent once both are done.
        #expect(link.sentDatagrams.allSatisfy { $0.count <= DTLSSession.defaultMTU })
        #expect(link.client.nextTimeoutNs == nil)
        #expect(link.server.nextTimeoutNs == nil)
        #expect(link.client.garbageDatagramCount == 0 && link.server.garbageDatagramCount == 0)
    }

    @Test(arguments: bothSuites)
    func negotiatesASuiteTheClientOffersAlone(suite: SRTPSuite) throws {
        let link = try InMemoryLink(clientSuites: [suite])
        link.handshake()
        #expect(link.clientKeys?.suite == suite)
        #expect(link.serverKeys?.suite == suite)
    }

    @Test(arguments: bothSuites)
    func negotiatesASuiteTheServerOffersAlone(suite: SRTPSuite) throws {
        let link = try InMemoryLink(serverSuites: [suite])
        link.handshake()
        #expect(link.clientKeys?.suite == suite)
        #expect(link.serverKeys?.suite == suite)
    }

    @Test func theServerPreferenceDecides() throws {
        let link = try InMemoryLink(serverSuites: [.aesCM128HMACSHA1_80, .aeadAES128GCM])
        link.handshake()
        #expect(link.clientKeys?.suite == .aesCM128HMACSHA1_80)
    }

    /// Probed once and kept: the browser suites this libsrtp2 runs, strongest first.
    @Test func defaultSuitesAreTheBrowserSuitesLibSRTPRuns() {
        let expected = bothSuites.filter(\.isSupported)
        #expect(!expected.isEmpty)
        #expect(DTLSSession.defaultSRTPSuites == expected)
    }

    @Test func failsWithoutACommonSuite() throws {
        let link = try InMemoryLink(clientSuites: [.aeadAES128GCM], serverSuites: [.aesCM128HMACSHA1_80])
        link.handshake()
        #expect(link.client.state == .failed)
        #expect(link.client.failure?.reason == .noCommonSRTPProfile)
        #expect(link.clientKeys == nil)
        #expect(link.clientEvents.compactMap(\.failure) == [try #require(link.client.failure)])
    }

    @Test func theClientRefusesAServerWithTheWrongFingerprint() throws {
        let impostor = try DTLSCertificate.generate()
        let link = try InMemoryLink(clientExpects: impostor.fingerprint)
        link.handshake()

        let error = try #require(link.client.failure)
        guard case .fingerprintMismatch(let expected, let actual) = error.reason else {
            Issue.record("expected a fingerprint mismatch, got \(error)")
            return
        }
        #expect(expected == impostor.fingerprint)
        #expect(actual != impostor.fingerprint)
        #expect(error.description.contains("the peer's certificate has fingerprint sha-256 "))
        #expect(link.clientKeys == nil)
        // The client's alert stops the server too.
        #expect(link.server.state == .failed)
        #expect(link.serverKeys == nil)
    }

    @Test func theServerRefusesAClientWithTheWrongFingerprint() throws {
        let impostor = try DTLSCertificate.generate()
        let link = try InMemoryLink(serverExpects: impostor.fingerprint)
        link.handshake()

        guard case .fingerprintMismatch(let expected, _) = link.server.failure?.reason else {
            Issue.record("expected a fingerprint mismatch, got \(String(describing: link.server.failure))")
            return
        }
        #expect(expected == impostor.fingerprint)
        #expect(link.serverKeys == nil)
        #expect(link.client.state == .failed)
        #expect(link.clientKeys == nil)
    }

    @Test func refusesSuitesWithoutADTLSProfile() throws {
        let error = try #require(throws: DTLSError.self) {
            try DTLSSession(
                role: .client, certificate: DTLSCertificate.generate(),
                remoteFingerprint: DTLSCertificate.generate().fingerprint, srtpSuites: [.aes256CMHMACSHA1_80])
        }
        #expect(error.reason == .suiteWithoutDTLSProfile(.aes256CMHMACSHA1_80))
    }

    /// The shortest schedule, so that a lost flight costs the test 50 ms.
    private static let quickSchedule = DTLSRetransmissionSchedule(
        initialMs: DTLSRetransmissionSchedule.minimumMs, maximumMs: DTLSRetransmissionSchedule.minimumMs)

    /// Waits for `session`'s retransmission timer and returns what it resends. OpenSSL 3.0 times
    /// retransmissions with gettimeofday, which the timer callback can shape but not replace, so
    /// this waits for the session's own deadline on the real clock: an event, not a fixed sleep.
    private static func retransmission(from session: DTLSSession) -> DTLSOutput {
        while let deadlineNs = session.nextTimeoutNs {
            MonotonicClock.sleep(untilNs: deadlineNs)
            let output = session.handleTimeout(nowNs: MonotonicClock.nowNs())
            if !output.datagrams.isEmpty || session.state != .handshaking { return output }
        }
        return DTLSOutput()
    }

    @Test func retransmitsADroppedFirstFlight() throws {
        let link = try InMemoryLink(clientSchedule: Self.quickSchedule)
        var dropped = 0
        link.deliver = { fromClient, _ in
            guard fromClient, dropped == 0 else { return true }
            dropped += 1
            return false
        }
        link.handshake(nowNs: MonotonicClock.nowNs())
        #expect(dropped == 1)
        #expect(link.client.state == .handshaking)
        #expect(link.server.state == .handshaking)

        let resent = Self.retransmission(from: link.client)
        #expect(!resent.datagrams.isEmpty)
        #expect(link.client.retransmissionCount == 1)
        link.take(resent, fromClient: true)
        link.exchange(nowNs: MonotonicClock.nowNs())
        #expect(link.client.state == .connected)
        #expect(link.server.state == .connected)
        #expect(link.clientKeys?.outbound == link.serverKeys?.inbound)
    }

    @Test func retransmitsWhenTheServerFinishedIsLost() throws {
        let link = try InMemoryLink(clientSchedule: Self.quickSchedule)
        // The server's last flight (ChangeCipherSpec, Finished) goes out when the server completes.
        var droppedFinalFlight = false
        link.deliver = { [unowned link] fromClient, _ in
            guard !fromClient, !droppedFinalFlight, link.server.state == .connected else { return true }
            droppedFinalFlight = true
            return false
        }
        link.handshake(nowNs: MonotonicClock.nowNs())
        #expect(droppedFinalFlight)
        #expect(link.server.state == .connected)
        #expect(link.client.state == .handshaking)

        // The client resends its flight; the connected server answers with its last flight again.
        link.take(Self.retransmission(from: link.client), fromClient: true)
        link.exchange(nowNs: MonotonicClock.nowNs())
        #expect(link.client.state == .connected)
        #expect(link.clientKeys?.outbound == link.serverKeys?.inbound)
    }

    @Test func refusesWaitsOpenSSLCannotKeep() throws {
        let error = try #require(throws: DTLSError.self) {
            try DTLSSession(
                role: .client, certificate: DTLSCertificate.generate(),
                remoteFingerprint: DTLSCertificate.generate().fingerprint,
                retransmission: DTLSRetransmissionSchedule(initialMs: 10, maximumMs: 1_000))
        }
        #expect(error.description.contains("must satisfy 50 ≤ initial ≤ maximum ≤ 600000"))
    }

    @Test func waitsForTheDeadlineBeforeAskingOpenSSL() throws {
        let link = try InMemoryLink()
        let startNs: Int64 = 5_000_000_000
        link.take(link.client.start(nowNs: startNs), fromClient: true)
        let deadline = try #require(link.client.nextTimeoutNs)
        // The default schedule waits one second first (RFC 6347 section 4.2.4.1).
        #expect(deadline >= startNs && deadline <= startNs + 1_000_000_000)
        #expect(link.client.handleTimeout(nowNs: deadline - 1) == DTLSOutput())
        #expect(link.client.retransmissionCount == 0)
        #expect(link.server.nextTimeoutNs == nil)
    }

    @Test func countsAndIgnoresGarbage() throws {
        let link = try InMemoryLink()
        let garbage: [[UInt8]] = [
            [],
            [0x00, 0x01, 0x00, 0x00],  // STUN
            [0x16, 0xFE, 0xFD, 0x00],  // a record header cut short
            [0x16, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x10, 0xAA],  // fragment longer than the datagram
            [0x16, 0x03, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x01, 0x01],  // TLS, not DTLS
            [0x18, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x01, 0x01],  // heartbeat
            [0x17, 0xFE, 0xFD] + [UInt8](repeating: 0, count: 8) + [0x0B, 0xB8] + [UInt8](repeating: 0, count: 3_000),
        ]
        for datagram in garbage {
            #expect(link.server.receive(datagram, nowNs: 0) == DTLSOutput())
            #expect(link.client.receive(datagram, nowNs: 0) == DTLSOutput())
        }
        #expect(link.server.garbageDatagramCount == garbage.count)
        #expect(link.client.garbageDatagramCount == garbage.count)

        link.handshake()
        #expect(link.client.state == .connected)
        #expect(link.server.state == .connected)
    }

    @Test func survivesRandomRecordsOnceConnected() throws {
        let link = try InMemoryLink()
        link.handshake()
        let keys = try #require(link.clientKeys)
        var random = SplitMix64(state: 0xD715)
        for _ in 0..<2_000 {
            let contentType = UInt8.random(in: 20...23, using: &random)
            let epoch = UInt16.random(in: 0...3, using: &random)
            let length = Int.random(in: 0...300, using: &random)
            let header = DTLSRecordHeader(
                contentType: DTLSRecordHeader.ContentType(rawValue: contentType) ?? .alert, version: 0xFEFD,
                epoch: epoch, sequenceNumber: UInt64.random(in: 0..<(1 << 48), using: &random), length: length)
            let datagram = header.serialized() + (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            link.take(link.client.receive(datagram, nowNs: 0), fromClient: true)
            link.take(link.server.receive(datagram, nowNs: 0), fromClient: false)
        }
        #expect(link.client.state == .connected)
        #expect(link.server.state == .connected)
        #expect(link.clientKeys == keys)
        #expect(link.clientEvents.compactMap(\.failure).isEmpty)
        #expect(link.serverEvents.compactMap(\.failure).isEmpty)
    }

    @Test func dropsProtectedRecordsTooShortForTheirTag() throws {
        let link = try InMemoryLink()
        link.handshake()
        // An epoch-1 record shorter than a GCM nonce and tag: OpenSSL itself would fail the session.
        for length in 0..<24 {
            let header = DTLSRecordHeader(
                contentType: .applicationData, version: 0xFEFD, epoch: 1, sequenceNumber: 9, length: length)
            let datagram = header.serialized() + [UInt8](repeating: 0x5A, count: length)
            #expect(link.client.receive(datagram, nowNs: 0) == DTLSOutput())
        }
        #expect(link.client.garbageDatagramCount == 24)
        #expect(link.client.state == .connected)
    }

    @Test func closeNotifyEndsBothSides() throws {
        let link = try InMemoryLink()
        link.handshake()
        let close = link.client.close()
        #expect(close.datagrams.count == 1)
        #expect(close.datagrams.first?.first == 21)  // an alert record
        #expect(link.client.state == .closed)

        link.take(close, fromClient: true)
        link.exchange()
        #expect(link.serverEvents.last == .closedByPeer)
        #expect(link.server.state == .closed)
        // The server's own close_notify reached the closed client, which ignored it.
        #expect(link.client.ignoredDatagramCount == 1)
        #expect(link.client.close() == DTLSOutput())
    }
}
