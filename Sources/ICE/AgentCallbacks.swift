import CNice
import Logging
import Synchronization

/// The context libnice's signals and receive callback reach us through (an `Unmanaged`
/// pointer), and what they record: state, selected pair, local candidates and credentials, the
/// gathering waiter.
///
/// Callbacks run on the agent's thread; the recorded values are read from any thread.
final class AgentCallbacks: @unchecked Sendable {
    private struct Recorded {
        var state = ICEConnectionState.disconnected
        var selectedPair: ICECandidatePair?
        var localCandidates: [ICECandidate] = []
        var localCredentials: ICECredentials
        var gatheringStarted = false
        var gatheringDone = false
        /// The waiter was handed the candidates before gathering was done.
        var gatheringCutShort = false
        var gatheringWaiter: CheckedContinuation<Result<[ICECandidate], ICEError>, Never>?
    }

    private let streamID: UInt32
    private let logger: Logger
    private let eventHandler: (@Sendable (ICEEvent) -> Void)?
    private let continuation: AsyncStream<ICEEvent>.Continuation
    private let receiveHandler: ICEAgent.ReceiveHandler
    private let recorded: Mutex<Recorded>

    init(
        streamID: UInt32, credentials: ICECredentials, logger: Logger, eventHandler: (@Sendable (ICEEvent) -> Void)?,
        continuation: AsyncStream<ICEEvent>.Continuation, receiveHandler: @escaping ICEAgent.ReceiveHandler
    ) {
        recorded = Mutex(Recorded(localCredentials: credentials))
        self.streamID = streamID
        self.logger = logger
        self.eventHandler = eventHandler
        self.continuation = continuation
        self.receiveHandler = receiveHandler
    }

    var state: ICEConnectionState { recorded.withLock { $0.state } }
    var selectedPair: ICECandidatePair? { recorded.withLock { $0.selectedPair } }
    var localCandidates: [ICECandidate] { recorded.withLock { $0.localCandidates } }
    var localCredentials: ICECredentials {
        get { recorded.withLock { $0.localCredentials } }
        set { recorded.withLock { $0.localCredentials = newValue } }
    }
    var isGatheringDone: Bool { recorded.withLock { $0.gatheringDone } }
    var isGatheringCutShort: Bool { recorded.withLock { $0.gatheringCutShort } }

    // MARK: libnice wiring

    /// Connects the signals and the receive callback; libnice handles STUN only while a receive
    /// callback is attached, so this comes before gathering.
    func connect(to agent: OpaquePointer, context: OpaquePointer) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        camrtp_nice_on_new_candidate(agent, { _, candidate, raw in
            guard let candidate, let raw else { return }
            Unmanaged<AgentCallbacks>.fromOpaque(raw).takeUnretainedValue().localCandidate(ICECandidate(candidate))
        }, me)
        camrtp_nice_on_gathering_done(agent, { _, _, raw in
            guard let raw else { return }
            Unmanaged<AgentCallbacks>.fromOpaque(raw).takeUnretainedValue().gatheringDone()
        }, me)
        camrtp_nice_on_state_changed(agent, { _, _, _, state, raw in
            guard let raw else { return }
            Unmanaged<AgentCallbacks>.fromOpaque(raw).takeUnretainedValue().stateChanged(ICEConnectionState(niceState: state))
        }, me)
        camrtp_nice_on_selected_pair(agent, { _, _, _, local, remote, raw in
            guard let local, let remote, let raw else { return }
            let pair = ICECandidatePair(local: ICECandidate(local), remote: ICECandidate(remote))
            Unmanaged<AgentCallbacks>.fromOpaque(raw).takeUnretainedValue().selectedPairChanged(pair)
        }, me)
        nice_agent_attach_recv(agent, streamID, 1, context, { _, _, _, length, bytes, raw in
            guard let raw else { return }
            Unmanaged<AgentCallbacks>.fromOpaque(raw).takeUnretainedValue()
                .receiveHandler(UnsafeRawBufferPointer(start: bytes, count: Int(length)))
        }, me)
    }

    /// On the agent's thread, before the agent is released: no callback reaches us after this.
    func disconnect(from agent: OpaquePointer, context: OpaquePointer) {
        nice_agent_attach_recv(agent, streamID, 1, context, nil, nil)
        camrtp_nice_disconnect_all(agent, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The agent is gone: a gathering still awaited fails, and `events` finishes.
    func finish() {
        failGathering(ICEError("gather candidates", detail: "the agent closed first"))
        continuation.finish()
    }

    // MARK: Gathering

    /// Takes the caller waiting for the end of gathering; false if gathering was started before.
    func setGatheringWaiter(_ waiter: CheckedContinuation<Result<[ICECandidate], ICEError>, Never>) -> Bool {
        recorded.withLock { recorded in
            guard !recorded.gatheringStarted else { return false }
            recorded.gatheringStarted = true
            recorded.gatheringWaiter = waiter
            return true
        }
    }

    func failGathering(_ error: ICEError) {
        recorded.withLock { $0.gatheringWaiter.take() }?.resume(returning: .failure(error))
    }

    /// Hands the waiter the candidates known so far, before gathering is done (trickle ICE:
    /// the rest follow as events).
    func stopWaitingForGathering() {
        let (waiter, candidates) = recorded.withLock { recorded in
            if recorded.gatheringWaiter != nil { recorded.gatheringCutShort = true }
            return (recorded.gatheringWaiter.take(), recorded.localCandidates)
        }
        waiter?.resume(returning: .success(candidates))
    }

    // MARK: Signals

    private func localCandidate(_ candidate: ICECandidate) {
        recorded.withLock { $0.localCandidates.append(candidate) }
        logger.debug("local candidate \(candidate)")
        emit(.localCandidate(candidate))
    }

    private func gatheringDone() {
        let (waiter, candidates) = recorded.withLock { recorded in
            recorded.gatheringDone = true
            return (recorded.gatheringWaiter.take(), recorded.localCandidates)
        }
        logger.debug("gathering done: \(candidates.count) candidates")
        emit(.gatheringDone)
        waiter?.resume(returning: .success(candidates))
    }

    private func stateChanged(_ state: ICEConnectionState) {
        let changed = recorded.withLock { recorded in
            defer { recorded.state = state }
            return recorded.state != state
        }
        guard changed else { return }
        logger.debug("ICE state \(state.rawValue)")
        emit(.stateChanged(state))
    }

    private func selectedPairChanged(_ pair: ICECandidatePair) {
        recorded.withLock { $0.selectedPair = pair }
        logger.debug("selected pair \(pair)")
        emit(.selectedPair(pair))
    }

    private func emit(_ event: ICEEvent) {
        eventHandler?(event)
        continuation.yield(event)
    }
}
