import CNice
import ICEServers
import Logging
import Synchronization

/// An ICE agent (RFC 8445) over libnice: one stream with one UDP component, so that RTP, RTCP
/// (rtcp-mux) and DTLS share one 5-tuple (BUNDLE), with consent freshness (RFC 7675; see
/// `ICEConfiguration.consentFreshness` for libnice 0.1.21).
///
/// The agent owns its `NiceAgent` and runs libnice's GMainContext on a thread of its own
/// (`camrtp.ice`). Every control call is queued to that thread, so events arrive there, in order,
/// both through `eventHandler` and through `events`. Received datagrams are handed to
/// `receiveHandler` on that thread too. `send` runs on the caller's thread (the send thread)
/// and allocates nothing.
///
/// Use: read `localCredentials`, `await gatherCandidates()`, signal both to the peer (SDP), then
/// `setRemoteCredentials`, `addRemoteCandidates` and `endOfRemoteCandidates` as the peer's
/// arrive. Media flows from `.stateChanged(.connected)`; `close()` ends it.
///
/// `@unchecked Sendable`: the C handles are used only on the agent's thread, except
/// `nice_agent_send`, which libnice locks, and which `gate` keeps from racing the teardown.
public final class ICEAgent: @unchecked Sendable {
    /// Called on the agent's thread with each datagram that is not STUN; the bytes are valid
    /// only during the call. The caller tells DTLS from SRTP by the first byte (RFC 7983). Keep it
    /// short (copy and hand off): checks, consent and timers wait behind it.
    public typealias ReceiveHandler = @Sendable (UnsafeRawBufferPointer) -> Void

    public let configuration: ICEConfiguration
    /// Every event, in order; finishes when the agent closes.
    public let events: AsyncStream<ICEEvent>

    private let agent: OpaquePointer
    private let streamID: UInt32
    private let loop: GLibLoopThread
    private let callbacks: AgentCallbacks
    private let logger: Logger
    /// True while the agent accepts calls; `close` clears it, under the lock, before teardown.
    private let gate = Mutex(true)

    /// Creates the agent and its stream, and starts its thread; nothing is sent until
    /// `gatherCandidates`.
    /// - Parameter threadName: the agent thread's name (at most 15 bytes show), so that the
    ///   agents of one user can be told from another's.
    public init(
        configuration: ICEConfiguration, logger: Logger = Logger(label: "camrtp.ice"), threadName: String = "camrtp.ice",
        eventHandler: (@Sendable (ICEEvent) -> Void)? = nil, receiveHandler: @escaping ReceiveHandler
    ) throws(ICEError) {
        if configuration.mode == .lite && configuration.role == .controlling {
            throw ICEError("create ICE agent", detail: "a lite agent is always controlled (RFC 8445 section 6.1.1)")
        }
        let localAddresses = try Self.parseLocalAddresses(configuration.localAddresses)

        var options = NICE_AGENT_OPTION_REGULAR_NOMINATION.rawValue | NICE_AGENT_OPTION_ICE_TRICKLE.rawValue
        if configuration.mode == .lite { options |= NICE_AGENT_OPTION_LITE_MODE.rawValue }
        let libraryConsent = configuration.consentFreshness && camrtp_nice_consent_timeout_is_rfc7675() != 0
        if libraryConsent { options |= NICE_AGENT_OPTION_CONSENT_FRESHNESS.rawValue }

        let loop = GLibLoopThread()
        guard let agent = nice_agent_new_full(loop.context, NICE_COMPATIBILITY_RFC5245, NiceAgentOption(options)) else {
            throw ICEError("create ICE agent", detail: "nice_agent_new_full returned nothing")
        }
        camrtp_nice_set_boolean(agent, "controlling-mode", configuration.role == .controlling ? 1 : 0)
        // UDP only, and no UPnP port mapping: it would probe the network for a gateway.
        camrtp_nice_set_boolean(agent, "ice-tcp", 0)
        camrtp_nice_set_boolean(agent, "upnp", 0)
        // An older libnice's consent freshness fails a pair 10 s after its last answered check:
        // on a path that loses a few percent, one check in ten or twenty. The same checks as
        // keepalives (binding requests every 4 to 6 s) fail the pair once none has been answered
        // for 50 s instead.
        if configuration.consentFreshness && !libraryConsent { camrtp_nice_set_boolean(agent, "keepalive-conncheck", 1) }
        for var address in localAddresses { nice_agent_add_local_address(agent, &address) }

        let streamID = nice_agent_add_stream(agent, 1)
        guard streamID != 0 else {
            g_object_unref(UnsafeMutableRawPointer(agent))
            throw ICEError("create ICE agent", detail: "nice_agent_add_stream failed")
        }
        var ufrag: UnsafeMutablePointer<gchar>?
        var password: UnsafeMutablePointer<gchar>?
        guard nice_agent_get_local_credentials(agent, streamID, &ufrag, &password) != 0, let ufrag, let password else {
            g_object_unref(UnsafeMutableRawPointer(agent))
            throw ICEError("create ICE agent", detail: "nice_agent_get_local_credentials failed")
        }
        let credentials = ICECredentials(usernameFragment: String(cString: ufrag), password: String(cString: password))
        g_free(ufrag)
        g_free(password)

        let (events, continuation) = AsyncStream.makeStream(of: ICEEvent.self)
        let callbacks = AgentCallbacks(
            streamID: streamID, credentials: credentials, logger: logger, eventHandler: eventHandler, continuation: continuation,
            receiveHandler: receiveHandler)
        callbacks.connect(to: agent, context: loop.context)

        self.configuration = configuration
        self.events = events
        self.agent = agent
        self.streamID = streamID
        self.loop = loop
        self.callbacks = callbacks
        self.logger = logger

        let handle = UncheckedPointer(agent)
        let context = UncheckedPointer(loop.context)
        loop.start(name: threadName) { [callbacks] in
            callbacks.disconnect(from: handle.pointer, context: context.pointer)
            g_object_unref(UnsafeMutableRawPointer(handle.pointer))
            callbacks.finish()
        }
    }

    deinit {
        close()
    }

    // MARK: Gathering

    /// Gathers host candidates, a server-reflexive one with a STUN server and relayed ones with
    /// TURN servers, and returns them once gathering is done, or after `waitingAtMostNs` with
    /// those known by then (trickle ICE: gathering goes on). Each also arrives as
    /// `.localCandidate` as soon as it is known, and the end as `.gatheringDone`. Call once.
    public func gatherCandidates(waitingAtMostNs: Int64? = nil) async throws(ICEError) -> [ICECandidate] {
        let result = await withCheckedContinuation { (waiter: CheckedContinuation<Result<[ICECandidate], ICEError>, Never>) in
            guard callbacks.setGatheringWaiter(waiter) else {
                waiter.resume(returning: .failure(ICEError("gather candidates", detail: "gathering was already started")))
                return
            }
            let posted = post { [self] in
                if let failure = startGathering() {
                    callbacks.failGathering(failure)
                } else if let waitingAtMostNs {
                    let callbacks = callbacks
                    loop.after(milliseconds: UInt32(clamping: waitingAtMostNs / 1_000_000)) { callbacks.stopWaitingForGathering() }
                }
            }
            if !posted { callbacks.failGathering(Self.closedError("gather candidates")) }
        }
        return try result.get()
    }

    /// True once every local candidate is known.
    public var isGatheringDone: Bool { callbacks.isGatheringDone }
    /// True when `gatherCandidates` returned at its deadline, before gathering was done: the
    /// candidates it returned are not all (trickle ICE sends the rest).
    public var isGatheringCutShort: Bool { callbacks.isGatheringCutShort }

    /// On the agent's thread: resolves the STUN and TURN servers, then starts libnice's gathering.
    /// A TURN server that cannot be used is skipped (and gives no relayed candidate); the other
    /// candidates still come.
    private func startGathering() -> ICEError? {
        if let server = configuration.stunServer {
            do throws(ICEError) {
                let address = try ServerAddressResolver.resolve(server.host, server: "STUN server \(server.host)")
                camrtp_nice_set_string(agent, "stun-server", address)
                camrtp_nice_set_uint(agent, "stun-server-port", UInt32(server.port))
            } catch {
                return error
            }
        }
        for server in configuration.turnServers {
            do throws(ICEError) {
                try addRelay(server)
            } catch {
                logger.warning("\(error); gathering without it")
            }
        }
        guard nice_agent_gather_candidates(agent, streamID) != 0 else {
            return ICEError("gather candidates", detail: "libnice could not bind any local address")
        }
        return nil
    }

    /// One TURN server for relayed candidates (RFC 8656), with its long-term credentials, over
    /// UDP or TCP. Not over TLS (`turns:`): libnice 0.1.21 in RFC 5245 mode takes
    /// `NICE_RELAY_TYPE_TURN_TLS` as plain TCP, which would send TURN in clear to a TLS port.
    private func addRelay(_ server: ICEServer) throws(ICEError) {
        guard server.uri.scheme == .turn, let username = server.username, let credential = server.credential else {
            throw ICEError(
                "use TURN server \(server)",
                detail: server.uri.scheme == .turns
                    ? "TURN over TLS is not supported (libnice would connect in clear)" : "it is no TURN server with a user name and a credential")
        }
        let address = try ServerAddressResolver.resolve(server.uri.host, server: "TURN server \(server)")
        let type = server.uri.transport == .tcp ? NICE_RELAY_TYPE_TURN_TCP : NICE_RELAY_TYPE_TURN_UDP
        guard nice_agent_set_relay_info(agent, streamID, 1, address, UInt32(server.uri.port), username, credential, type) != 0 else {
            throw ICEError("use TURN server \(server)", detail: "libnice refused it")
        }
    }

    // MARK: Restart

    /// ICE restart (RFC 8445 section 9; libnice's `nice_agent_restart_stream`): new local
    /// credentials (`credentials`, or libnice's own), the peer's candidates and the checks
    /// dropped, local consent restored. Local candidates are kept, not gathered again. The
    /// selected pair carries media until checks with the peer's new credentials and candidates
    /// (`setRemoteCredentials`, `addRemoteCandidates`) select another. Returns our new credentials.
    public func restart(with credentials: ICECredentials? = nil) async throws(ICEError) -> ICECredentials {
        let result = await withCheckedContinuation { (waiter: CheckedContinuation<Result<ICECredentials, ICEError>, Never>) in
            let posted = post { [self] in
                guard nice_agent_restart_stream(agent, streamID) != 0 else {
                    waiter.resume(returning: .failure(ICEError("restart ICE", detail: "nice_agent_restart_stream failed")))
                    return
                }
                if let credentials,
                    nice_agent_set_local_credentials(agent, streamID, credentials.usernameFragment, credentials.password) == 0
                {
                    waiter.resume(returning: .failure(ICEError("restart ICE", detail: "libnice refused the new credentials")))
                    return
                }
                var ufrag: UnsafeMutablePointer<gchar>?
                var password: UnsafeMutablePointer<gchar>?
                guard nice_agent_get_local_credentials(agent, streamID, &ufrag, &password) != 0, let ufrag, let password else {
                    waiter.resume(returning: .failure(ICEError("restart ICE", detail: "nice_agent_get_local_credentials failed")))
                    return
                }
                let credentials = ICECredentials(usernameFragment: String(cString: ufrag), password: String(cString: password))
                g_free(ufrag)
                g_free(password)
                callbacks.localCredentials = credentials
                logger.debug("ICE restarted")
                waiter.resume(returning: .success(credentials))
            }
            if !posted { waiter.resume(returning: .failure(Self.closedError("restart ICE"))) }
        }
        return try result.get()
    }

    // MARK: The peer

    /// The peer's `a=ice-ufrag` and `a=ice-pwd`.
    public func setRemoteCredentials(_ credentials: ICECredentials) throws(ICEError) {
        let posted = post { [self] in
            if nice_agent_set_remote_credentials(agent, streamID, credentials.usernameFragment, credentials.password) == 0 {
                logger.warning("libnice rejected the remote ICE credentials")
            }
        }
        guard posted else { throw Self.closedError("set remote credentials") }
    }

    /// The peer's candidates, at once from SDP or one by one as they trickle in. A candidate whose
    /// address is no IP literal (an mDNS `.local` name) is ignored: its checks arrive anyway and
    /// the peer becomes a peer-reflexive candidate. Returns how many were taken.
    @discardableResult
    public func addRemoteCandidates(_ candidates: [ICECandidate]) throws(ICEError) -> Int {
        var list: UnsafeMutablePointer<GSList>?
        var taken = 0
        for candidate in candidates {
            guard let niceCandidate = candidate.makeNiceCandidate(streamID: streamID) else {
                logger.debug("ignoring remote candidate with unresolvable address \(candidate.address)")
                continue
            }
            list = g_slist_append(list, niceCandidate)
            taken += 1
        }
        guard let list else { return 0 }
        let handle = UncheckedList(list: list)
        let posted = post { [self] in
            if nice_agent_set_remote_candidates(agent, streamID, 1, handle.list) < 0 {
                logger.warning("libnice rejected remote ICE candidates")
            }
            handle.free()
        }
        guard posted else {
            handle.free()
            throw Self.closedError("add remote candidates")
        }
        return taken
    }

    /// The peer has no more candidates (`a=end-of-candidates`, or a complete SDP without trickle):
    /// from now on, checks that all fail fail the session.
    public func endOfRemoteCandidates() throws(ICEError) {
        let posted = post { [self] in
            _ = nice_agent_peer_candidate_gathering_done(agent, streamID)
        }
        guard posted else { throw Self.closedError("end remote candidates") }
    }

    // MARK: State

    /// Our `a=ice-ufrag` and `a=ice-pwd`, generated by libnice; new after each `restart`.
    public var localCredentials: ICECredentials { callbacks.localCredentials }
    /// The latest state of the component.
    public var state: ICEConnectionState { callbacks.state }
    /// The pair `send` uses, once checks have found one.
    public var selectedPair: ICECandidatePair? { callbacks.selectedPair }
    /// Every local candidate gathered so far.
    public var localCandidates: [ICECandidate] { callbacks.localCandidates }

    // MARK: Media

    /// Sends one datagram on the selected pair, from any thread, without allocating. Returns
    /// false when it did not leave: no pair selected yet, consent lost, closed, or a socket error.
    @discardableResult
    public func send(_ datagram: UnsafeRawBufferPointer) -> Bool {
        guard let base = datagram.baseAddress, datagram.count <= Self.maximumDatagramBytes else { return false }
        return gate.withLock { open in
            guard open else { return false }
            let sent = nice_agent_send(agent, streamID, 1, UInt32(datagram.count), base.assumingMemoryBound(to: gchar.self))
            return sent == datagram.count
        }
    }

    // MARK: Shutdown

    /// Stops checks and consent, closes the sockets, ends the agent's thread and finishes
    /// `events`. Waits for all of that unless called on the agent's thread (from a handler),
    /// where it finishes once the handler returns. Safe to call more than once.
    public func close() {
        let closing = gate.withLock { open in
            guard open else { return false }
            open = false
            let loop = self.loop
            let handle = UncheckedPointer(agent)
            loop.invoke {
                nice_agent_close_async(handle.pointer, { _, _, raw in
                    Unmanaged<GLibLoopThread>.fromOpaque(raw!).takeRetainedValue().quit()
                }, Unmanaged.passRetained(loop).toOpaque())
            }
            return true
        }
        if closing { logger.debug("closing ICE agent") }
        loop.join()
    }

    // MARK: Helpers

    /// The largest UDP payload over IPv6 (65535 less the UDP header); IPv4's is 28 bytes less.
    private static let maximumDatagramBytes = 65_527

    /// Queues `body` to the agent's thread unless the agent is closed.
    private func post(_ body: @escaping @Sendable () -> Void) -> Bool {
        gate.withLock { open in
            guard open else { return false }
            loop.invoke(body)
            return true
        }
    }

    private static func closedError(_ operation: String) -> ICEError {
        ICEError(operation, detail: "the agent is closed")
    }

    private static func parseLocalAddresses(_ addresses: [String]) throws(ICEError) -> [NiceAddress] {
        var parsed: [NiceAddress] = []
        for text in addresses {
            var address = NiceAddress()
            guard nice_address_set_from_string(&address, text) != 0 else {
                throw ICEError("restrict local addresses", detail: "\"\(text)\" is not an IPv4 or IPv6 address")
            }
            parsed.append(address)
        }
        return parsed
    }
}

/// A GSList of NiceCandidates handed to the agent's thread, which frees it.
private struct UncheckedList: @unchecked Sendable {
    let list: UnsafeMutablePointer<GSList>

    func free() {
        g_slist_free_full(list) { candidate in
            nice_candidate_free(candidate?.assumingMemoryBound(to: NiceCandidate.self))
        }
    }
}
