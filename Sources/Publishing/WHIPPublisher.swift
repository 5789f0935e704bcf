import CongestionControl
import ICE
import ICEServers
import Logging
import MediaCore
import Metrics
import SDP
import Synchronization
import WebRTC
import WHIP

/// Publishes to a WHIP endpoint for as long as it runs (`camrtp publish`): one session after
/// another, each a `WebRTCVideoSender` that `sink` feeds while it lasts.
///
/// A session: OPTIONS for the ICE servers the endpoint offers (RFC 9725 section 4.6), gathering
/// with those and the configured ones, the POST, candidates gathered after the offer PATCHed
/// with the session's ETag (trickle ICE, section 4.3.1), then ICE and DTLS. While it runs, a
/// lost path (consent expired, no RTCP from the endpoint for `silenceNs`, the local addresses
/// changed) brings an ICE restart (section 4.3.2), and a restart that fails or does not connect
/// within `restartWaitNs`, or a session that ends, brings a best-effort DELETE and a new POST
/// after a backoff; `ReconnectionPolicy` decides. Every new session starts with a keyframe.
///
/// `run` returns when its task is cancelled and throws when the policy gives up; `end` then
/// DELETEs the last session.
public final class WHIPPublisher: Sendable {
    public struct Configuration: Sendable {
        public var sender: WebRTCSenderConfiguration
        /// Reconnection attempts in a row without a connection before giving up; nil: never.
        public var reconnectLimit: Int?
        public var restartWaitNs: Int64
        /// A ready connection that hears no RTCP for this long is taken as lost.
        public var silenceNs: Int64
        /// How often the session's state and the local addresses are looked at.
        public var pollNs: Int64
        /// Asked once per session for where its congestion-controller updates go.
        public var makeTraceSink: @Sendable () -> BWETraceSink?

        public init(
            sender: WebRTCSenderConfiguration, reconnectLimit: Int? = nil, restartWaitNs: Int64 = 5_000_000_000,
            silenceNs: Int64 = 3_000_000_000, pollNs: Int64 = 200_000_000,
            makeTraceSink: @escaping @Sendable () -> BWETraceSink? = { nil }
        ) {
            self.sender = sender
            self.makeTraceSink = makeTraceSink
            self.reconnectLimit = reconnectLimit
            self.restartWaitNs = restartWaitNs
            self.silenceNs = silenceNs
            self.pollNs = pollNs
        }
    }

    /// Why `run` gave up: the endpoint refused the session, or the reconnection limit was
    /// reached after `cause`.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let reason: ReconnectionStopReason
        public let cause: String

        public var description: String {
            switch reason {
            case .refused: "\(reason)"
            case .limitReached: "\(cause); \(reason)"
            }
        }
    }

    /// The pipeline's sink, for the whole run.
    public let sink = PublishingSink()
    public let configuration: Configuration
    private let client: WHIPClient
    private let logger: Logger
    private let report: @Sendable (PublisherEvent) -> Void
    private let current = Mutex(Current())
    private struct Current {
        var session: WHIPSession?
        var sender: WebRTCVideoSender?
        var reconnections = 0
        var iceRestarts = 0
        /// Frames the senders of earlier sessions sent, and dropped before they were ready.
        var framesForwarded = 0
        var framesDroppedBeforeReady = 0
    }
    private let reconnectionCounter: Counter

    public init(
        client: WHIPClient, configuration: Configuration, logger: Logger = Logger(label: "camrtp.publish"),
        report: @escaping @Sendable (PublisherEvent) -> Void = { _ in }
    ) {
        self.client = client
        self.configuration = configuration
        self.logger = logger
        self.report = report
        reconnectionCounter = Counter(label: "camrtp_reconnections")
    }

    /// New sessions after the first, each counted once its POST goes out.
    public var reconnections: Int { current.withLock { $0.reconnections } }
    /// ICE restarts the endpoint took.
    public var iceRestarts: Int { current.withLock { $0.iceRestarts } }
    /// The session now, if the endpoint holds one.
    public var session: WHIPSession? { current.withLock { $0.session } }
    /// The last session's sender, for its figures.
    public var sender: WebRTCVideoSender? { current.withLock { $0.sender } }
    /// Frames sent over all sessions, and frames that came while a session was not ready yet.
    public var framesForwarded: Int {
        current.withLock { $0.framesForwarded + ($0.sender?.statistics.framesForwarded ?? 0) }
    }
    public var framesDroppedBeforeReady: Int {
        current.withLock { $0.framesDroppedBeforeReady + ($0.sender?.statistics.framesDroppedBeforeReady ?? 0) }
    }

    // MARK: Running

    /// Publishes until cancelled; throws `Failure` when the policy gives up.
    public func run() async throws {
        var policy = ReconnectionPolicy(
            limit: configuration.reconnectLimit, restartWaitNs: configuration.restartWaitNs, random: SystemRandomNumberGenerator())
        var learned: [ICEServer] = []
        while !Task.isCancelled {
            let ended = await runSession(policy: &policy, learned: &learned)
            guard case .lost(let cause, let decision) = ended else { return }
            await retire()
            switch decision {
            case .stop(let reason):
                throw Failure(reason: reason, cause: cause)
            case .reconnect(let delayNs):
                current.withLock { $0.reconnections += 1 }
                reconnectionCounter.increment()
                report(.reconnecting(cause: cause, delayNs: delayNs, attempt: policy.attemptsInARow))
                do {
                    try await Task.sleep(for: .nanoseconds(delayNs))
                } catch {
                    return
                }
            case .restartICE:
                continue
            }
        }
    }

    /// DELETEs the session the endpoint holds and closes its sender (after the pipeline has
    /// finished the sink).
    public func end() async throws {
        let (session, sender) = current.withLock { ($0.session, $0.sender) }
        current.withLock { $0.session = nil }
        if let sender { await Self.close(sender) }
        if let session { try await client.stop(session) }
    }

    private enum SessionEnd {
        case cancelled
        case lost(cause: String, decision: ReconnectionDecision)
    }

    /// One session, from OPTIONS to its end.
    private func runSession(policy: inout ReconnectionPolicy<SystemRandomNumberGenerator>, learned: inout [ICEServer]) async -> SessionEnd {
        let now = MonotonicClock.nowNs
        let reconnection = current.withLock { $0.reconnections }
        var offered = (try? await client.offeredICEServers())?.servers ?? []
        if Task.isCancelled { return .cancelled }
        offered = Self.merged(learned, offered)
        let senderConfiguration = senderConfiguration(with: offered)
        let localAddresses = senderConfiguration.transport.localAddresses
        let sender: WebRTCVideoSender
        do {
            sender = try await WebRTCVideoSender.offering(
                configuration: senderConfiguration, traceSink: configuration.makeTraceSink(), logger: logger)
        } catch {
            return .lost(cause: "\(error)", decision: policy.sessionLost(nowNs: now()))
        }
        let inOffer = sender.connection.gatheredTransport
        let session: WHIPSession
        do {
            session = try await client.publish(offer: sender.localDescription)
        } catch {
            await Self.close(sender)
            if Task.isCancelled { return .cancelled }
            return .lost(cause: "\(error)", decision: policy.requestFailed(error, nowNs: now()))
        }
        current.withLock { $0.session = session }
        report(.published(session, reconnection: reconnection))
        let new = session.iceServers.servers.filter { !$0.uri.scheme.isSecure && !senderConfiguration.transport.uses($0) }
        if !new.isEmpty {
            learned = Self.merged(learned, new)
            report(.iceServersOffered(new))
        }
        do {
            try sender.acceptAnswer(session.answer)
        } catch {
            await Self.close(sender)
            return .lost(cause: "the endpoint's answer does not fit: \(error)", decision: policy.sessionLost(nowNs: now()))
        }
        current.withLock { $0.sender = sender }
        if let previous = sink.use(sender) { await Self.close(previous) }
        var trickling: Task<Void, Never>? = inOffer.endOfCandidates
            ? nil : trickle(from: sender, to: session, skipping: inOffer.candidates.count, entityTag: session.entityTag)
        defer { trickling?.cancel() }

        var turnChecked = false
        switch await waitForConnection(sender, deadlineNs: nil, turnChecked: &turnChecked) {
        case .cancelled: return .cancelled
        case .down(let state): return .lost(cause: Self.cause(state), decision: policy.sessionLost(nowNs: now()))
        case .ready: break
        }
        policy.connected(nowNs: now())
        report(.connected(sender.statistics.connection, reconnection: reconnection, restarted: false))

        var restartSupported = true
        var watch = PathWatch(sender: sender, localAddresses: localAddresses, nowNs: now())
        while true {
            do {
                try await Task.sleep(for: .nanoseconds(configuration.pollNs))
            } catch {
                return .cancelled
            }
            reportSilentTURNServers(of: sender, checked: &turnChecked)
            let state = sender.state
            if state.isTerminal { return .lost(cause: Self.cause(state), decision: policy.sessionLost(nowNs: now())) }
            guard let trouble = watch.trouble(state: state, nowNs: now(), silenceNs: configuration.silenceNs, restartSupported: restartSupported)
            else { continue }
            switch policy.pathLost(nowNs: now(), restartSupported: restartSupported) {
            case .restartICE:
                trickling?.cancel()
                trickling = nil
                report(.restartingICE(cause: trouble))
                switch await restartICE(sender, session: session) {
                case .restarted:
                    let deadline = now() + policy.restartWaitNs
                    switch await waitForConnection(sender, deadlineNs: deadline, turnChecked: &turnChecked) {
                    case .cancelled: return .cancelled
                    case .ready:
                        current.withLock { $0.iceRestarts += 1 }
                        policy.connected(nowNs: now())
                        watch = PathWatch(sender: sender, localAddresses: localAddresses, nowNs: now())
                        report(.connected(sender.statistics.connection, reconnection: reconnection, restarted: true))
                    case .down(let state):
                        return .lost(
                            cause: "\(trouble), and an ICE restart did not bring it back (\(Self.cause(state)))", decision: policy.sessionLost(nowNs: now()))
                    }
                case .unsupported(let answer):
                    restartSupported = false
                    report(.patchRefused(what: "ICE restarts", answer: answer))
                    if sender.state != .ready {
                        return .lost(cause: trouble, decision: policy.sessionLost(nowNs: now()))
                    }
                    watch = PathWatch(sender: sender, localAddresses: localAddresses, nowNs: now())
                case .failed(let error):
                    return .lost(cause: "\(trouble), and the ICE restart failed: \(error)", decision: policy.sessionLost(nowNs: now()))
                }
            case .reconnect(let delayNs):
                return .lost(cause: trouble, decision: .reconnect(delayNs: delayNs))
            case .stop(let reason):
                return .lost(cause: trouble, decision: .stop(reason))
            }
        }
    }

    /// The sender's configuration for one session: the configured STUN and TURN servers, then
    /// the endpoint's (its STUN server only when none is configured: libnice takes one; no
    /// `stuns:` or `turns:`, which libnice would reach in clear).
    private func senderConfiguration(with offered: [ICEServer]) -> WebRTCSenderConfiguration {
        var sender = configuration.sender
        if sender.transport.stunServer == nil, let stun = offered.first(where: { !$0.uri.scheme.isTURN && !$0.uri.scheme.isSecure }) {
            sender.transport.stunServer = STUNServerAddress(host: stun.uri.host, port: stun.uri.port)
        }
        sender.transport.turnServers = Self.merged(sender.transport.turnServers, offered.filter { $0.uri.scheme == .turn })
        return sender
    }

    /// A connection state as the reason a session ended.
    private static func cause(_ state: WebRTCConnectionState) -> String {
        switch state {
        case .failed(let failure): "\(failure)"
        case .closed: "the endpoint ended the session (DTLS close_notify)"
        default: "the connection is \(state)"
        }
    }

    private static func merged(_ first: [ICEServer], _ second: [ICEServer]) -> [ICEServer] {
        first + second.filter { server in !first.contains { $0.uri == server.uri } }
    }

    // MARK: Connection state

    private enum Connection {
        case ready
        case down(WebRTCConnectionState)
        case cancelled
    }

    /// Waits until the connection is ready, fails or closes (the connect timeout fails it), or
    /// `deadlineNs` passes. With a deadline (after an ICE restart) ready needs the new checks
    /// to have found a pair too.
    private func waitForConnection(_ sender: WebRTCVideoSender, deadlineNs: Int64?, turnChecked: inout Bool) async -> Connection {
        while true {
            reportSilentTURNServers(of: sender, checked: &turnChecked)
            let state = sender.state
            if state == .ready, deadlineNs == nil || [.connected, .ready].contains(sender.connection.iceState) { return .ready }
            if state.isTerminal { return .down(state) }
            if let deadlineNs, MonotonicClock.nowNs() >= deadlineNs { return .down(state) }
            do {
                try await Task.sleep(for: .nanoseconds(configuration.pollNs / 4))
            } catch {
                return .cancelled
            }
        }
    }

    /// Once gathering is done, names the TURN servers that gave no relayed candidate.
    private func reportSilentTURNServers(of sender: WebRTCVideoSender, checked: inout Bool) {
        guard !checked, sender.connection.localTransport.endOfCandidates else { return }
        checked = true
        let silent = sender.connection.silentTURNServers
        if !silent.isEmpty { report(.turnServersSilent(silent)) }
    }

    // MARK: ICE restart and trickle

    private enum RestartOutcome {
        case restarted
        /// 405, 422 or 501: the endpoint takes no restart; its answer.
        case unsupported(String)
        case failed(String)
    }

    private func restartICE(_ sender: WebRTCVideoSender, session: WHIPSession) async -> RestartOutcome {
        do {
            let fragment = sender.proposeICERestart()
            switch try await client.patch(session, fragment: fragment.serialized(), ifMatch: "*") {
            case .applied:
                return .failed("the endpoint answered 204 without its new ICE values")
            case .restarted(let text, _):
                try await sender.acceptRestartAnswer(try SDPFragment(parsing: text))
                return .restarted
            }
        } catch let error as WHIPError where [405, 422, 501].contains(error.statusCode) {
            return .unsupported("\(error)")
        } catch {
            return .failed("\(error)")
        }
    }

    /// PATCHes the candidates gathered after the offer, in one fragment for those that came
    /// together, the last with `a=end-of-candidates` (RFC 9725 section 4.3.1). Stops at the
    /// first refusal: an endpoint without trickle ICE says so once.
    private func trickle(from sender: WebRTCVideoSender, to session: WHIPSession, skipping sent: Int, entityTag: String?) -> Task<Void, Never> {
        Task { [client, report, logger] in
            var sent = sent
            for await event in sender.connection.iceEvents {
                guard case .localCandidate = event else {
                    if event != .gatheringDone { continue }
                    break
                }
                let fragment = sender.localICEFragment
                let all = fragment.candidates
                guard all.count > sent || fragment.isEndOfCandidates else { continue }
                do {
                    _ = try await client.patch(session, fragment: Self.dropping(sent, from: fragment).serialized(), ifMatch: entityTag)
                    sent = all.count
                } catch let error as WHIPError where [405, 422, 501].contains(error.statusCode) {
                    report(.patchRefused(what: "trickled candidates", answer: "\(error)"))
                    return
                } catch {
                    logger.info("trickle PATCH failed: \(error)")
                    return
                }
                if fragment.isEndOfCandidates { return }
            }
            // Gathering is done: the last candidates and the end, if not sent yet.
            let fragment = sender.localICEFragment
            guard fragment.isEndOfCandidates, !Task.isCancelled else { return }
            _ = try? await client.patch(session, fragment: Self.dropping(sent, from: fragment).serialized(), ifMatch: entityTag)
        }
    }

    /// `fragment` without the first `count` candidates, which the endpoint has.
    private static func dropping(_ count: Int, from fragment: SDPFragment) -> SDPFragment {
        var update = fragment
        update.sections = update.sections.map { section in
            var section = section
            section.candidates = Array(section.candidates.dropFirst(count))
            return section
        }
        return update
    }

    // MARK: Ending a session

    /// Takes the session out of the sink, closes its sender and DELETEs it, best effort: the
    /// endpoint may be gone.
    private func retire() async {
        let (session, sender) = current.withLock { current -> (WHIPSession?, WebRTCVideoSender?) in
            defer {
                if let sender = current.sender {
                    let statistics = sender.statistics
                    current.framesForwarded += statistics.framesForwarded
                    current.framesDroppedBeforeReady += statistics.framesDroppedBeforeReady
                }
                current.session = nil
                current.sender = nil
            }
            return (current.session, current.sender)
        }
        _ = sink.use(nil)
        if let sender { await Self.close(sender) }
        if let session {
            let client = client
            Task { try? await client.stop(session) }
        }
    }

    /// Closing joins threads: off the concurrency pool.
    private static func close(_ sender: WebRTCVideoSender) async {
        await MediaThread.run(name: "camrtp.publish.close") { sender.close() }
    }
}

extension WebRTCTransportOptions {
    /// True when gathering already uses `server`.
    func uses(_ server: ICEServer) -> Bool {
        if server.uri.scheme.isTURN { return turnServers.contains { $0.uri == server.uri } }
        return stunServer.map { $0.host == server.uri.host && $0.port == server.uri.port } ?? false
    }
}
