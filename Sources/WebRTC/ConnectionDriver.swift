import DTLS
import ICE
import Logging
import MediaCore

/// The connection's own thread (`camrtp.webrtc`): it owns the DTLS session and the state
/// machine, feeds DTLS the datagrams the router queued, sends its flights through the agent,
/// fires its retransmission timer and the connect timeout, and reports every state change.
final class ConnectionDriver: @unchecked Sendable {
    typealias Report = @Sendable (ConnectionReport) -> Void

    private let inbox: ConnectionInbox
    private let agent: ICEAgent
    private let logger: Logger
    private let report: Report
    private var machine: ConnectionStateMachine
    private var session: DTLSSession?
    /// DTLS datagrams that came before the peer's description (its ClientHello can beat the answer).
    private var early: [[UInt8]] = []
    private static let maximumEarlyDatagrams = 16

    init(
        inbox: ConnectionInbox, agent: ICEAgent, connectTimeoutNs: Int64, disconnectedGraceNs: Int64, logger: Logger,
        report: @escaping Report
    ) {
        self.inbox = inbox
        self.agent = agent
        self.logger = logger
        self.report = report
        machine = ConnectionStateMachine(connectTimeoutNs: connectTimeoutNs, disconnectedGraceNs: disconnectedGraceNs)
    }

    /// Runs until the inbox stops; then closes DTLS (close_notify when connected).
    func run() {
        while true {
            let deadline = [session?.nextTimeoutNs, machine.deadlineNs].compactMap { $0 }.min()
            let (inputs, stop) = inbox.take(waitingUntilNs: deadline)
            for input in inputs { handle(input) }
            let now = MonotonicClock.nowNs()
            if let session, session.nextTimeoutNs.map({ now >= $0 }) == true {
                apply(session.handleTimeout(nowNs: now), nowNs: now)
            }
            transition(.tick, nowNs: now)
            if stop { break }
        }
        let now = MonotonicClock.nowNs()
        if let session { send(session.close().datagrams) }
        transition(.close, nowNs: now)
    }

    private func handle(_ input: ConnectionInput) {
        let now = MonotonicClock.nowNs()
        switch input {
        case .start(let box):
            session = box.session
            transition(.start, nowNs: now)
            for datagram in early { apply(box.session.receive(datagram, nowNs: now), nowNs: now) }
            early = []
        case .dtls(let datagram):
            if let session {
                apply(session.receive(datagram, nowNs: now), nowNs: now)
            } else if early.count < Self.maximumEarlyDatagrams {
                early.append(datagram)
            }
        case .ice(let event):
            switch event {
            case .stateChanged(.connected), .stateChanged(.ready):
                transition(.iceConnected, nowNs: now)
            case .stateChanged(.failed):
                transition(.iceFailed, nowNs: now)
            case .selectedPair(let pair):
                report(.selectedPair(pair))
            default:
                break
            }
        }
    }

    /// Sends DTLS's flights and feeds its events to the state machine.
    private func apply(_ output: DTLSOutput, nowNs: Int64) {
        send(output.datagrams)
        for event in output.events {
            switch event {
            case .connected(let keys):
                report(.keys(keys))
                transition(.dtlsConnected, nowNs: nowNs)
            case .failed(let error):
                transition(.dtlsFailed("\(error)"), nowNs: nowNs)
            case .closedByPeer:
                transition(.dtlsClosedByPeer, nowNs: nowNs)
            }
        }
    }

    private func transition(_ input: ConnectionStateMachine.Input, nowNs: Int64) {
        guard let state = machine.handle(input, nowNs: nowNs) else { return }
        logger.debug("WebRTC connection \(state)")
        report(.state(state, machine.timeline, dtlsStatistics))
        // The pair works: the DTLS client opens (RFC 5763 section 5); a server listens.
        if state == .connected, let session {
            apply(session.start(nowNs: nowNs), nowNs: nowNs)
            transition(.dtlsStarted, nowNs: nowNs)
        }
    }

    private func send(_ datagrams: [[UInt8]]) {
        for datagram in datagrams { _ = datagram.withUnsafeBytes { agent.send($0) } }
    }

    private var dtlsStatistics: DTLSCounters {
        guard let session else { return DTLSCounters() }
        return DTLSCounters(
            retransmissions: session.retransmissionCount, garbageDatagrams: session.garbageDatagramCount,
            suite: session.srtpKeys?.suite.sdpName)
    }
}

/// What the driver tells the connection, on its thread.
enum ConnectionReport: Sendable {
    case state(WebRTCConnectionState, ConnectionTimeline, DTLSCounters)
    case keys(DTLSSRTPKeys)
    case selectedPair(ICECandidatePair)
}

/// The DTLS session's counters as of the last state change.
public struct DTLSCounters: Sendable, Hashable {
    /// Handshake flights sent again after a timeout.
    public var retransmissions = 0
    /// Datagrams that were no plausible DTLS records.
    public var garbageDatagrams = 0
    /// The negotiated SRTP profile, once connected.
    public var suite: String?

    public init(retransmissions: Int = 0, garbageDatagrams: Int = 0, suite: String? = nil) {
        self.retransmissions = retransmissions
        self.garbageDatagrams = garbageDatagrams
        self.suite = suite
    }
}
