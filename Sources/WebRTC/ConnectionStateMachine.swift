/// The connection's life as a pure policy: ICE checks, the DTLS handshake, ready; failures and
/// the connect timeout, on a clock the caller passes in (`nowNs`), so that it is tested without
/// sockets or waiting.
///
/// ```
/// new ─start─▶ checking ─ICE connected─▶ connected ─DTLS started─▶ dtls ─DTLS connected─▶ ready
///                  └──────────┴── ICE failed, DTLS failed, timeout ──┴──▶ failed      close ─▶ closed
///
/// ready ─ICE failed─▶ disconnected ─ICE connected (an ICE restart)─▶ ready
///                          └── the grace period passes ──▶ failed (consent expired)
/// ```
///
/// The timeout runs from `start` until `ready`. Once ready, only an ICE failure (consent lost,
/// RFC 7675), a DTLS failure or a close move it on. With a grace period, a lost path leaves the
/// connection `disconnected` rather than failed: DTLS and the SRTP keys stay, and an ICE restart
/// (RFC 8445 section 9) that finds a pair within the period brings it back to `ready`. Failed
/// and closed are final.
public struct ConnectionStateMachine: Sendable {
    public enum Input: Sendable, Hashable {
        /// The peer's description is applied and checks begin.
        case start
        case iceConnected
        case iceFailed
        case dtlsStarted
        case dtlsConnected
        case dtlsFailed(String)
        /// The peer's close_notify.
        case dtlsClosedByPeer
        case close
        /// Time passes: the timeout may fire.
        case tick
    }

    public let connectTimeoutNs: Int64
    /// How long a connection that lost its path after `ready` waits for an ICE restart; 0 fails
    /// it at once.
    public let disconnectedGraceNs: Int64
    public private(set) var state: WebRTCConnectionState = .new
    /// When the connection fails unless ready first; nil outside the connecting and
    /// disconnected phases.
    public private(set) var deadlineNs: Int64?
    public private(set) var timeline = ConnectionTimeline()

    public init(connectTimeoutNs: Int64, disconnectedGraceNs: Int64 = 0) {
        self.connectTimeoutNs = connectTimeoutNs
        self.disconnectedGraceNs = disconnectedGraceNs
    }

    /// Applies `input` at `nowNs`; returns the new state when it changed.
    @discardableResult
    public mutating func handle(_ input: Input, nowNs: Int64) -> WebRTCConnectionState? {
        guard !state.isTerminal else { return nil }
        let next: WebRTCConnectionState?
        switch (input, state) {
        case (.start, .new):
            deadlineNs = nowNs + connectTimeoutNs
            timeline.startedNs = nowNs
            next = .checking
        case (.iceConnected, .checking):
            timeline.iceConnectedNs = nowNs
            next = .connected
        case (.dtlsStarted, .connected):
            next = .dtls
        case (.dtlsConnected, .checking), (.dtlsConnected, .connected), (.dtlsConnected, .dtls):
            // A DTLS server can finish before its own ICE agent reports the pair.
            if timeline.iceConnectedNs == nil { timeline.iceConnectedNs = nowNs }
            timeline.dtlsConnectedNs = nowNs
            deadlineNs = nil
            next = .ready
        case (.iceFailed, .ready) where disconnectedGraceNs > 0:
            deadlineNs = nowNs + disconnectedGraceNs
            timeline.disconnections += 1
            next = .disconnected
        case (.iceFailed, .ready):
            next = .failed(.consentExpired)
        case (.iceConnected, .disconnected):
            deadlineNs = nil
            next = .ready
        case (.tick, .disconnected):
            guard let deadlineNs, nowNs >= deadlineNs else { return nil }
            next = .failed(.consentExpired)
        case (.iceFailed, .new), (.iceFailed, .checking), (.iceFailed, .connected), (.iceFailed, .dtls):
            next = .failed(.iceFailed)
        case (.dtlsFailed(let detail), _):
            next = .failed(.dtls(detail))
        case (.dtlsClosedByPeer, _), (.close, _):
            next = .closed
        case (.tick, .checking), (.tick, .connected), (.tick, .dtls):
            guard let deadlineNs, nowNs >= deadlineNs else { return nil }
            next = .failed(.timeout(phase: Self.phase(of: state), seconds: Double(connectTimeoutNs) / 1e9))
        default:
            next = nil
        }
        guard let next, next != state else { return nil }
        state = next
        if next.isTerminal { deadlineNs = nil }
        return next
    }

    private static func phase(of state: WebRTCConnectionState) -> String {
        switch state {
        case .checking: "running ICE checks"
        case .connected, .dtls: "in the DTLS handshake"
        default: state.description
        }
    }
}

/// When the connection passed each step, on the caller's clock (ns); nil until it did.
public struct ConnectionTimeline: Sendable, Hashable {
    public var startedNs: Int64?
    public var iceConnectedNs: Int64?
    public var dtlsConnectedNs: Int64?
    /// How often the path was lost after `ready` (each followed by an ICE restart or the end).
    public var disconnections = 0

    public init(startedNs: Int64? = nil, iceConnectedNs: Int64? = nil, dtlsConnectedNs: Int64? = nil) {
        self.startedNs = startedNs
        self.iceConnectedNs = iceConnectedNs
        self.dtlsConnectedNs = dtlsConnectedNs
    }

    /// From `start` to a working pair, in ms.
    public var iceMs: Double? { Self.span(startedNs, iceConnectedNs) }
    /// From the working pair to the SRTP keys, in ms.
    public var dtlsMs: Double? { Self.span(iceConnectedNs, dtlsConnectedNs) }

    static func span(_ from: Int64?, _ to: Int64?) -> Double? {
        guard let from, let to else { return nil }
        return Double(to - from) / 1e6
    }
}
