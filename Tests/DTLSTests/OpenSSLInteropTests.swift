import DTLS
import Foundation
import Logging
import MediaCore
import TestSupport
import Testing
import Transport

/// The openssl command-line tool's DTLS client and server as the peer we did not write: the
/// session in the test talks to it over real UDP on 127.0.0.1, and both sides' exported
/// `EXTRACTOR-dtls_srtp` material must agree byte for byte.
@Suite("DTLS-SRTP against openssl s_server and s_client")
struct OpenSSLInteropTests {
    private static let label = "EXTRACTOR-dtls_srtp"

    /// A certificate and key openssl made, for the openssl side.
    private struct PeerCredentials {
        let directory = TemporaryDirectory()
        let certificatePath: String
        let keyPath: String
        let fingerprint: DTLSFingerprint

        init() throws {
            certificatePath = directory.file("peer.crt")
            keyPath = directory.file("peer.key")
            try makeOpenSSLCertificate(commonName: "peer", certificatePath: certificatePath, keyPath: keyPath)
            // Loading it also checks our PEM reader on openssl's own output.
            fingerprint = try DTLSCertificate.load(certificatePath: certificatePath, privateKeyPath: keyPath).fingerprint
        }
    }

    /// The common DTLS-SRTP options of s_server and s_client for `suite`.
    private static func options(for suite: SRTPSuite, credentials: PeerCredentials) -> [String] {
        [
            "-dtls1_2", "-mtu", "1200", "-use_srtp", suite.openSSLProfileName,
            "-keymatexport", label, "-keymatexportlen", "\(2 * (suite.keyLength + suite.saltLength))",
            "-cert", credentials.certificatePath, "-key", credentials.keyPath,
        ]
    }

    /// `    Keying material: 0A1B…` as s_server and s_client print it, as bytes.
    private static func keyingMaterial(in line: String) -> [UInt8] {
        let hex = Array(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces).utf8 ?? "".utf8)
        return stride(from: 0, to: hex.count - 1, by: 2).compactMap { index in
            UInt8(String(decoding: hex[index..<index + 2], as: UTF8.self), radix: 16)
        }
    }

    /// Our keys laid out as RFC 5764 section 4.2 exports them: client key, server key, client salt,
    /// server salt.
    private static func exportedLayout(of keys: DTLSSRTPKeys, role: DTLSSession.Role) throws -> [UInt8] {
        func bytes(_ key: SRTPMasterKey) throws -> [UInt8] {
            [UInt8](try #require(Data(base64Encoded: key.base64EncodedKeyingMaterial())))
        }
        let ours = try bytes(keys.outbound)
        let theirs = try bytes(keys.inbound)
        let (client, server) = role == .client ? (ours, theirs) : (theirs, ours)
        let keyLength = keys.suite.keyLength
        let writeKeys: [UInt8] = Array(client[..<keyLength]) + Array(server[..<keyLength])
        let salts: [UInt8] = Array(client[keyLength...]) + Array(server[keyLength...])
        return writeKeys + salts
    }

    /// Relays datagrams between `session` and the openssl process until the session connects,
    /// fails or closes; waits on the socket, with retransmission timeouts as they fall due.
    private static func relay(
        _ session: DTLSSession, socket: UDPPeerSocket, peerPort: inout UInt16?, first: DTLSOutput
    ) -> [DTLSEvent] {
        var events = first.events
        var pending = first.datagrams
        let hangGuardNs = MonotonicClock.nowNs() + 60_000_000_000
        while session.state == .handshaking, MonotonicClock.nowNs() < hangGuardNs {
            if let port = peerPort {
                for datagram in pending { socket.send(datagram, toPort: port) }
                pending = []
            }
            let nowNs = MonotonicClock.nowNs()
            let waitMs = session.nextTimeoutNs.map { max(0, min(1_000, ($0 - nowNs) / 1_000_000 + 1)) } ?? 1_000
            let output: DTLSOutput
            if let (datagram, port) = socket.receive(timeoutMs: Int32(waitMs)) {
                peerPort = peerPort ?? port
                output = session.receive(datagram, nowNs: MonotonicClock.nowNs())
            } else {
                output = session.handleTimeout(nowNs: MonotonicClock.nowNs())
            }
            pending += output.datagrams
            events += output.events
        }
        if let port = peerPort {
            for datagram in pending { socket.send(datagram, toPort: port) }
        }
        return events
    }

    private static func makeSession(
        role: DTLSSession.Role, suite: SRTPSuite, expecting fingerprint: DTLSFingerprint
    ) throws -> DTLSSession {
        try DTLSSession(
            role: role, certificate: DTLSCertificate.generate(), remoteFingerprint: fingerprint, srtpSuites: [suite],
            logger: Logger(label: "test.dtls.interop"))
    }

    @Test(arguments: [SRTPSuite.aesCM128HMACSHA1_80, .aeadAES128GCM])
    func asClientOfSServer(suite: SRTPSuite) throws {
        let credentials = try PeerCredentials()
        let server = try LineReadingProcess(
            "openssl",
            ["s_server", "-accept", "127.0.0.1:0", "-verify", "1"] + Self.options(for: suite, credentials: credentials))
        defer { server.stop() }
        let accept = try #require(server.waitForLine(containing: "ACCEPT"), "\(server.output)")
        let announcedPort = accept.split(separator: ":").last.flatMap { UInt16($0) }
        var serverPort = announcedPort
        #expect(serverPort != nil, "\(accept)")

        let socket = try UDPPeerSocket()
        let session = try Self.makeSession(role: .client, suite: suite, expecting: credentials.fingerprint)
        let first = session.start(nowNs: MonotonicClock.nowNs())
        let events = Self.relay(session, socket: socket, peerPort: &serverPort, first: first)
        let keys = try #require(session.srtpKeys, "\(events) \(server.output)")
        #expect(keys.suite == suite)
        #expect(server.waitForLine(containing: "SRTP Extension negotiated, profile=\(suite.openSSLProfileName)") != nil)

        let line = try #require(server.waitForLine(containing: "Keying material:"), "\(server.output)")
        #expect(Self.keyingMaterial(in: line) == (try Self.exportedLayout(of: keys, role: .client)))

        // Our close_notify ends s_server's connection: it prints DONE when SSL_read sees it.
        for datagram in session.close().datagrams { socket.send(datagram, toPort: try #require(serverPort)) }
        #expect(server.waitForLine(containing: "DONE") != nil, "\(server.output)")
    }

    @Test(arguments: [SRTPSuite.aesCM128HMACSHA1_80, .aeadAES128GCM])
    func asServerOfSClient(suite: SRTPSuite) throws {
        let credentials = try PeerCredentials()
        let socket = try UDPPeerSocket()
        let session = try Self.makeSession(role: .server, suite: suite, expecting: credentials.fingerprint)
        let client = try LineReadingProcess(
            "openssl",
            ["s_client", "-connect", "127.0.0.1:\(socket.port)"] + Self.options(for: suite, credentials: credentials))
        defer { client.stop() }

        var clientPort: UInt16?
        let first = session.start(nowNs: MonotonicClock.nowNs())
        let events = Self.relay(session, socket: socket, peerPort: &clientPort, first: first)
        let keys = try #require(session.srtpKeys, "\(events) \(client.output)")
        #expect(keys.suite == suite)
        let line = try #require(client.waitForLine(containing: "Keying material:"), "\(client.output)")
        #expect(Self.keyingMaterial(in: line) == (try Self.exportedLayout(of: keys, role: .server)))

        // s_client quits at the end of its input and sends close_notify.
        client.closeInput()
        var closeEvents: [DTLSEvent] = []
        while session.state == .connected, let (datagram, _) = socket.receive(timeoutMs: 60_000) {
            closeEvents += session.receive(datagram, nowNs: MonotonicClock.nowNs()).events
        }
        #expect(closeEvents == [.closedByPeer], "\(client.output)")
    }
}

extension SRTPSuite {
    /// The profile's name in `-use_srtp`.
    fileprivate var openSSLProfileName: String {
        switch self {
        case .aesCM128HMACSHA1_80: "SRTP_AES128_CM_SHA1_80"
        case .aesCM128HMACSHA1_32: "SRTP_AES128_CM_SHA1_32"
        case .aeadAES128GCM: "SRTP_AEAD_AES_128_GCM"
        case .aeadAES256GCM: "SRTP_AEAD_AES_256_GCM"
        case .aes256CMHMACSHA1_80, .aes256CMHMACSHA1_32: "none"
        }
    }
}
