/// What an `ICEAgent` reports, in order, on its own thread.
public enum ICEEvent: Sendable, Hashable {
    /// A local candidate to signal to the peer now (trickle ICE) or with the rest.
    case localCandidate(ICECandidate)
    /// Every local candidate is known: the SDP layer can write `a=end-of-candidates`.
    case gatheringDone
    case stateChanged(ICEConnectionState)
    /// The pair that `send` now uses; it can change while checks go on.
    case selectedPair(ICECandidatePair)
}

/// The state of the agent's single component (libnice's NiceComponentState).
public enum ICEConnectionState: String, Sendable, Hashable {
    /// Nothing started yet, or the peer's candidates were removed.
    case disconnected
    case gathering
    /// Connectivity checks are running (libnice's "connecting").
    case checking
    /// At least one pair works; media may flow.
    case connected
    /// Nomination concluded: the selected pair is final.
    case ready
    /// Every check failed, or consent expired (RFC 7675): the peer stopped answering.
    case failed
}
