import DTLS
import Logging
import Transport

/// A client and a server session joined by two in-memory queues, with a hook that may drop
/// datagrams on the way, as a lossy network would.
final class InMemoryLink {
    let client: DTLSSession
    let server: DTLSSession
    private(set) var clientEvents: [DTLSEvent] = []
    private(set) var serverEvents: [DTLSEvent] = []
    /// Every datagram either side sent, dropped or not.
    private(set) var sentDatagrams: [[UInt8]] = []
    private var toServer: [[UInt8]] = []
    private var toClient: [[UInt8]] = []
    /// Return false to lose a datagram the client (`true`) or server (`false`) sent.
    var deliver: (_ fromClient: Bool, _ datagram: [UInt8]) -> Bool = { _, _ in true }

    init(client: DTLSSession, server: DTLSSession) {
        self.client = client
        self.server = server
    }

    /// Certificates of both sides and sessions that expect them, unless told to expect another.
    convenience init(
        clientSuites: [SRTPSuite] = DTLSSession.defaultSRTPSuites,
        serverSuites: [SRTPSuite] = DTLSSession.defaultSRTPSuites,
        clientSchedule: DTLSRetransmissionSchedule = DTLSRetransmissionSchedule(),
        clientExpects: DTLSFingerprint? = nil,
        serverExpects: DTLSFingerprint? = nil
    ) throws {
        let clientCertificate = try DTLSCertificate.generate()
        let serverCertificate = try DTLSCertificate.generate()
        let client = try DTLSSession(
            role: .client, certificate: clientCertificate,
            remoteFingerprint: clientExpects ?? serverCertificate.fingerprint, srtpSuites: clientSuites,
            retransmission: clientSchedule, logger: Logger(label: "test.dtls.client"))
        let server = try DTLSSession(
            role: .server, certificate: serverCertificate,
            remoteFingerprint: serverExpects ?? clientCertificate.fingerprint, srtpSuites: serverSuites,
            logger: Logger(label: "test.dtls.server"))
        self.init(client: client, server: server)
    }

    /// Queues what a session produced for the other side.
    func take(_ output: DTLSOutput, fromClient: Bool) {
        sentDatagrams += output.datagrams
        if fromClient {
            clientEvents += output.events
            toServer += output.datagrams.filter { deliver(true, $0) }
        } else {
            serverEvents += output.events
            toClient += output.datagrams.filter { deliver(false, $0) }
        }
    }

    /// Delivers queued datagrams back and forth until none are left (or `maximumRounds` pass).
    func exchange(nowNs: Int64 = 0, maximumRounds: Int = 20) {
        for _ in 0..<maximumRounds where !(toServer.isEmpty && toClient.isEmpty) {
            let forServer = toServer
            let forClient = toClient
            toServer = []
            toClient = []
            for datagram in forServer { take(server.receive(datagram, nowNs: nowNs), fromClient: false) }
            for datagram in forClient { take(client.receive(datagram, nowNs: nowNs), fromClient: true) }
        }
    }

    /// Starts both sides and exchanges until the handshake settles.
    func handshake(nowNs: Int64 = 0) {
        take(server.start(nowNs: nowNs), fromClient: false)
        take(client.start(nowNs: nowNs), fromClient: true)
        exchange(nowNs: nowNs)
    }

    var clientKeys: DTLSSRTPKeys? { client.srtpKeys }
    var serverKeys: DTLSSRTPKeys? { server.srtpKeys }
}

extension DTLSEvent {
    var failure: DTLSError? {
        if case .failed(let error) = self { return error }
        return nil
    }

    var isConnected: Bool {
        if case .connected = self { return true }
        return false
    }
}
