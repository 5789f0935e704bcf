import DTLS
import ICE
import ICEServers
import Logging
import MediaCore
import RTPSender
import SDP
import Synchronization

/// One WebRTC media path: an ICE agent (libnice), a DTLS-SRTP association and the sender's SRTP
/// on one 5-tuple, with rtcp-mux and BUNDLE for one video section (RFC 8829, RFC 8843).
///
/// Datagrams from the agent are sorted per RFC 7983: libnice keeps STUN, DTLS goes to the
/// connection's thread (`camrtp.webrtc`, which owns the `DTLSSession` and its timer), SRTCP goes
/// to whoever called `startReceiving` (the RTP sender), the rest is counted and dropped. The DTLS
/// role follows `a=setup` (RFC 8842): an offerer says actpass and the answerer takes active.
///
/// As a `MediaTransport`, `send` hands protected packets to the agent once the keys exist; the
/// RTP sender protects them with `srtpKeys.outbound` and reads SRTCP with `.inbound`.
///
/// Use: `gatherCandidates()`, signal `localTransport` (through `VideoNegotiator`), then `start`
/// with the peer's values, `waitUntilReady()`, and `close()`.
public final class WebRTCConnection: MediaTransport, @unchecked Sendable {
    public typealias StateHandler = @Sendable (WebRTCConnectionState) -> Void
    /// The ICE agent's thread: libnice's loop, checks, consent and the RFC 7983 routing.
    public static let agentThreadName = "camrtp.rtc.ice"

    public let options: WebRTCTransportOptions
    public let certificate: DTLSCertificate
    public let iceRole: ICERole

    private let agent: ICEAgent
    private let inbox: ConnectionInbox
    private let router: DatagramRouter
    private let logger: Logger
    private let stateHandler: StateHandler?
    private let status = Mutex(Status())
    /// Open from `ready` until failure or close: `send` passes packets to the agent.
    private let mediaOpen = Atomic<Bool>(false)
    private let thread = Mutex<MediaThread?>(nil)

    private struct Status {
        var state = WebRTCConnectionState.new
        var timeline = ConnectionTimeline()
        var dtls = DTLSCounters()
        var keys: DTLSSRTPKeys?
        var selectedPair: ICECandidatePair?
        /// The peer's current ICE credentials: the description's, then each restart's.
        var remoteCredentials: ICEParameters?
        /// Ours for a restart we proposed, until the peer answers it.
        var proposedCredentials: ICECredentials?
        /// What `gatherCandidates` returned, and whether that was all.
        var gathered: (candidates: [ICECandidate], complete: Bool) = ([], false)
        var started = false
        var closed = false
        var waiters: [Waiter] = []
    }

    private typealias Waiter = CheckedContinuation<Result<DTLSSRTPKeys, WebRTCError>, Never>

    /// Creates the agent (controlling for an offerer, controlled for an answerer) and the
    /// certificate when none is given; nothing is sent until `gatherCandidates`.
    /// - Parameter stateHandler: every state change, on the connection's thread; keep it short
    ///   and do not call `close` from it.
    public init(
        iceRole: ICERole, options: WebRTCTransportOptions, logger: Logger = Logger(label: "camrtp.webrtc"),
        stateHandler: StateHandler? = nil
    ) throws(WebRTCError) {
        if let given = options.certificate {
            certificate = given
        } else {
            do throws(DTLSError) {
                certificate = try DTLSCertificate.generate()
            } catch {
                throw .dtls(error)
            }
        }
        let inbox = ConnectionInbox()
        let router = DatagramRouter(inbox: inbox)
        let configuration = ICEConfiguration(
            role: iceRole, stunServer: options.stunServer, turnServers: options.turnServers, localAddresses: options.localAddresses,
            consentFreshness: options.consentFreshness)
        do throws(ICEError) {
            agent = try ICEAgent(
                configuration: configuration, logger: logger, threadName: Self.agentThreadName, eventHandler: { event in inbox.push(.ice(event)) },
                receiveHandler: { datagram in router.route(datagram) })
        } catch {
            throw .ice(error)
        }
        self.options = options
        self.iceRole = iceRole
        self.inbox = inbox
        self.router = router
        self.logger = logger
        self.stateHandler = stateHandler
        let driver = ConnectionDriver(
            inbox: inbox, agent: agent, connectTimeoutNs: options.connectTimeoutNs, disconnectedGraceNs: options.disconnectedGraceNs,
            logger: logger
        ) { [weak self] report in self?.receive(report) }
        thread.withLock { $0 = MediaThread(name: "camrtp.webrtc") { driver.run() } }
    }

    deinit {
        close()
    }

    // MARK: Signalling

    /// Gathers our candidates (host, server-reflexive with a STUN server, relayed with TURN
    /// servers) and returns them: all of them, or those known after `options.gatheringWaitNs`.
    public func gatherCandidates() async throws(WebRTCError) -> [ICECandidate] {
        let candidates: [ICECandidate]
        do throws(ICEError) {
            candidates = try await agent.gatherCandidates(waitingAtMostNs: options.gatheringWaitNs)
        } catch {
            throw .ice(error)
        }
        let complete = !agent.isGatheringCutShort
        status.withLock { $0.gathered = (candidates, complete) }
        return candidates
    }

    /// Our ICE credentials, fingerprint and the candidates `gatherCandidates` returned, for the
    /// description (`VideoNegotiator`): with `a=end-of-candidates` when that was all of them,
    /// else with `a=ice-options:trickle`, the rest to follow in `iceEvents` (RFC 8838).
    public var gatheredTransport: LocalTransportParameters {
        let gathered = status.withLock { $0.gathered }
        return transport(candidates: gathered.candidates, complete: gathered.complete)
    }

    /// The same with every candidate known now: what a trickle or restart fragment carries.
    public var localTransport: LocalTransportParameters {
        transport(candidates: agent.localCandidates, complete: agent.isGatheringDone)
    }

    private func transport(candidates: [ICECandidate], complete: Bool) -> LocalTransportParameters {
        LocalTransportParameters(
            iceCredentials: TransportConversion.sdpCredentials(agent.localCredentials), iceOptions: complete ? [] : ["trickle"],
            fingerprints: [TransportConversion.sdpFingerprint(certificate.fingerprint)],
            candidates: candidates.map(TransportConversion.sdpCandidate), endOfCandidates: complete)
    }

    /// The ICE agent's events in order (local candidates as they are gathered, the end of
    /// gathering, states, pairs), for one reader: a trickle ICE sender.
    public var iceEvents: AsyncStream<ICEEvent> { agent.events }

    /// The TURN servers that gave no relayed candidate, once gathering is done: a server that
    /// did not answer or refused the credentials. With several servers nothing tells which
    /// gave which candidate, so all are named unless at least one relayed candidate came.
    public var silentTURNServers: [ICEServer] {
        guard agent.isGatheringDone, !options.turnServers.isEmpty else { return [] }
        return agent.localCandidates.contains { $0.type == .relayed } ? [] : options.turnServers
    }

    /// Applies the peer's ICE and DTLS values: checks begin, and the connect timeout runs from now.
    /// - Parameter localRole: ours, from `NegotiatedVideo.localDTLSRole`.
    public func start(remote: RemoteTransportParameters, localRole: SDP.DTLSRole) throws(WebRTCError) {
        let fingerprint = try TransportConversion.remoteFingerprint(remote.fingerprints)
        let session: DTLSSession
        do throws(DTLSError) {
            session = try DTLSSession(
                role: TransportConversion.dtlsRole(localRole), certificate: certificate, remoteFingerprint: fingerprint,
                srtpSuites: options.srtpSuites, logger: logger)
        } catch {
            throw .dtls(error)
        }
        let first = status.withLock { status in
            defer { status.started = true }
            return !status.started && !status.closed
        }
        guard first else { throw .unexpectedAnswer("the connection was started already or is closed") }
        inbox.push(.start(DTLSSessionBox(session: session)))
        // Without trickle, the description holds every candidate: checks that all fail end it.
        try applyRemoteICE(
            remote.iceCredentials, candidates: remote.candidates,
            endOfCandidates: remote.endOfCandidates || !remote.iceOptions.contains("trickle"))
    }

    /// Adds candidates the peer trickled (RFC 8838), such as from a WHIP or WHEP PATCH; returns
    /// how many the agent took (UDP candidates of component 1 with an IP address).
    @discardableResult
    public func addRemoteCandidates(_ candidates: [Candidate], endOfCandidates: Bool = false) throws(WebRTCError) -> Int {
        do throws(ICEError) {
            let taken = try agent.addRemoteCandidates(TransportConversion.iceCandidates(candidates))
            if endOfCandidates { try agent.endOfRemoteCandidates() }
            return taken
        } catch {
            throw .ice(error)
        }
    }

    /// The peer's ICE credentials now: its description's, or its latest restart's.
    public var remoteICECredentials: ICEParameters? { status.withLock { $0.remoteCredentials } }

    // MARK: ICE restart

    /// Proposes an ICE restart from our side (RFC 8445 section 9; a WHIP client's PATCH, RFC
    /// 9725 section 4.3.2): new credentials with our candidates, to signal. Nothing changes
    /// until `acceptRestart` takes the peer's answer, so a peer that refuses the restart leaves
    /// the connection as it was. DTLS and SRTP then carry on over whatever pair the new checks
    /// select; until then the current pair carries media, if it still works.
    public func proposeRestart() -> LocalTransportParameters {
        let credentials = ICECredentials.random()
        status.withLock { $0.proposedCredentials = credentials }
        var transport = localTransport
        transport.iceCredentials = TransportConversion.sdpCredentials(credentials)
        return transport
    }

    /// The peer's answer to the restart we proposed: ours take effect with its new credentials
    /// and candidates.
    public func acceptRestart(_ credentials: ICEParameters, candidates: [Candidate], endOfCandidates: Bool) async throws(WebRTCError) {
        guard let proposed = status.withLock({ $0.proposedCredentials.take() }) else {
            throw .unexpectedAnswer("no ICE restart was proposed")
        }
        do throws(ICEError) {
            _ = try await agent.restart(with: proposed)
        } catch {
            throw .ice(error)
        }
        try applyRemoteICE(credentials, candidates: candidates, endOfCandidates: endOfCandidates)
    }

    /// The peer restarts ICE (new credentials in its PATCH, RFC 9725 section 4.3.2): we restart
    /// too, take its credentials and candidates, and return ours to answer with.
    public func answerRestart(
        _ credentials: ICEParameters, candidates: [Candidate], endOfCandidates: Bool
    ) async throws(WebRTCError) -> LocalTransportParameters {
        do throws(ICEError) {
            _ = try await agent.restart()
        } catch {
            throw .ice(error)
        }
        try applyRemoteICE(credentials, candidates: candidates, endOfCandidates: endOfCandidates)
        return localTransport
    }

    private func applyRemoteICE(_ credentials: ICEParameters, candidates: [Candidate], endOfCandidates: Bool) throws(WebRTCError) {
        status.withLock { $0.remoteCredentials = credentials }
        do throws(ICEError) {
            try agent.setRemoteCredentials(TransportConversion.iceCredentials(credentials))
            try agent.addRemoteCandidates(TransportConversion.iceCandidates(candidates))
            if endOfCandidates { try agent.endOfRemoteCandidates() }
        } catch {
            throw .ice(error)
        }
    }

    // MARK: State

    public var state: WebRTCConnectionState { status.withLock { $0.state } }
    /// The ICE agent's own state: after an ICE restart, `connected` once the new checks found a pair.
    public var iceState: ICEConnectionState { agent.state }
    /// The SRTP keys for each direction, once ready.
    public var srtpKeys: DTLSSRTPKeys? { status.withLock { $0.keys } }

    /// Returns the keys once ICE and DTLS are done; throws the failure, the timeout or `closed`.
    public func waitUntilReady() async throws(WebRTCError) -> DTLSSRTPKeys {
        let result = await withCheckedContinuation { (waiter: CheckedContinuation<Result<DTLSSRTPKeys, WebRTCError>, Never>) in
            let settled: Result<DTLSSRTPKeys, WebRTCError>? = status.withLock { status in
                if let outcome = Self.outcome(status) { return outcome }
                status.waiters.append(waiter)
                return nil
            }
            if let settled { waiter.resume(returning: settled) }
        }
        return try result.get()
    }

    public var statistics: WebRTCConnectionStatistics {
        let status = status.withLock { $0 }
        return WebRTCConnectionStatistics(
            state: status.state, timeline: status.timeline, selectedPair: status.selectedPair?.description, dtls: status.dtls,
            rtcpReceived: router.rtcpDelivered.load(ordering: .relaxed),
            rtcpUnclaimed: router.rtcpUnclaimed.load(ordering: .relaxed),
            rtpIgnored: router.rtpIgnored.load(ordering: .relaxed), unclassified: router.unclassified.load(ordering: .relaxed),
            dtlsQueueOverflow: inbox.overflowCount)
    }

    // MARK: MediaTransport

    /// Passes one protected packet to the agent; false before `ready`, after a failure or close,
    /// or when the socket refused it. Allocates nothing.
    public func send(_ datagram: UnsafeRawBufferPointer) -> Bool {
        guard mediaOpen.load(ordering: .acquiring) else { return false }
        return agent.send(datagram)
    }

    public func startReceiving(_ receive: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) {
        router.setFeedbackReceiver(receive)
    }

    /// Hands every SRTP packet from the peer (still protected) to `receive`, on the agent's
    /// thread; for a peer that receives. Without it, the peer's RTP is counted and dropped.
    public func startReceivingMedia(_ receive: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) {
        router.setMediaReceiver(receive)
    }

    // MARK: Shutdown

    /// Sends DTLS close_notify when connected, stops the connection's thread and the agent.
    /// Safe to call more than once; not from the state handler.
    public func close() {
        let running = thread.withLock { $0.take() }
        inbox.stop()
        if let running, running.isCurrent {
            // Released from a report on the connection's own thread: it ends once that returns.
            _ = MediaThread(name: "camrtp.webrtc.j", joinable: false) { running.join() }
        } else {
            running?.join()
        }
        mediaOpen.store(false, ordering: .releasing)
        agent.close()
        let waiters = status.withLock { status in
            status.closed = true
            if !status.state.isTerminal { status.state = .closed }
            defer { status.waiters = [] }
            return status.waiters
        }
        for waiter in waiters { waiter.resume(returning: .failure(.closed)) }
    }

    // MARK: Reports from the driver

    private func receive(_ report: ConnectionReport) {
        switch report {
        case .keys(let keys):
            status.withLock { $0.keys = keys }
        case .selectedPair(let pair):
            status.withLock { $0.selectedPair = pair }
        case .state(let state, let timeline, let dtls):
            if state == .ready { mediaOpen.store(true, ordering: .releasing) }
            if state.isTerminal || state == .disconnected { mediaOpen.store(false, ordering: .releasing) }
            let settled: (waiters: [Waiter], outcome: Result<DTLSSRTPKeys, WebRTCError>)? = status.withLock { status in
                status.state = state
                status.timeline = timeline
                status.dtls = dtls
                guard let outcome = Self.outcome(status) else { return nil }
                defer { status.waiters = [] }
                return (status.waiters, outcome)
            }
            if case .failed(let failure) = state { logger.info("WebRTC connection failed: \(failure)") }
            // The handler first: whoever waits finds what it set up (the RTP sender) in place.
            stateHandler?(state)
            if let settled { for waiter in settled.waiters { waiter.resume(returning: settled.outcome) } }
        }
    }

    /// Settled once ready (with keys), failed or closed; nil while connecting.
    private static func outcome(_ status: Status) -> Result<DTLSSRTPKeys, WebRTCError>? {
        switch status.state {
        case .ready: status.keys.map { .success($0) }
        case .failed(let failure): .failure(.connection(failure))
        case .closed: .failure(.closed)
        default: status.closed ? .failure(.closed) : nil
        }
    }
}

/// A connection's figures: where it stands, how long each step took, and what arrived.
public struct WebRTCConnectionStatistics: Sendable, Hashable {
    public var state: WebRTCConnectionState
    public var timeline: ConnectionTimeline
    /// `local ⇄ remote` of the pair in use.
    public var selectedPair: String?
    public var dtls: DTLSCounters
    /// SRTCP datagrams handed to the sender, and those that came before it listened.
    public var rtcpReceived: UInt64
    public var rtcpUnclaimed: UInt64
    /// RTP from the peer, which a send-only connection drops.
    public var rtpIgnored: UInt64
    /// Datagrams of no protocol we speak (RFC 7983's other ranges, unknown first bytes).
    public var unclassified: UInt64
    /// DTLS datagrams dropped while the connection's queue was full.
    public var dtlsQueueOverflow: UInt64
}
