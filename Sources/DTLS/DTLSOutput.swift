/// Something the session tells its owner once.
public enum DTLSEvent: Sendable, Hashable {
    /// The handshake finished and the peer's certificate matched its fingerprint: start SRTP.
    case connected(DTLSSRTPKeys)
    /// The handshake or the association failed; the session ignores everything from now on.
    case failed(DTLSError)
    /// The peer sent close_notify; we answered with ours (in the same output).
    case closedByPeer
}

/// What one call into a `DTLSSession` produced: datagrams to send to the peer, in order, and events.
public struct DTLSOutput: Sendable, Hashable {
    public var datagrams: [[UInt8]]
    public var events: [DTLSEvent]

    public init(datagrams: [[UInt8]] = [], events: [DTLSEvent] = []) {
        self.datagrams = datagrams
        self.events = events
    }
}
