import MediaCore

/// The live sessions by resource id, with a cap. A slot is reserved before the factory runs, so
/// concurrent offers cannot overshoot the cap while their ICE and DTLS set-up is pending.
final class WHEPSessionRegistry: @unchecked Sendable {
    private let lock = ThreadCondition()
    private let maxSessions: Int
    private var sessions: [String: any WHEPSession] = [:]
    /// Each session's ICE session entity-tag (RFC 9725 section 4.3), new after each restart.
    private var iceTags: [String: String] = [:]
    private var reserved = 0
    private var closed = false

    init(maxSessions: Int) {
        self.maxSessions = maxSessions
    }

    var count: Int { lock.withLock { sessions.count } }

    var resourceIDs: [String] { lock.withLock { sessions.keys.sorted() } }

    /// False when full (or shutting down): the offer gets a 503.
    func reserve() -> Bool {
        lock.withLock {
            guard !closed, sessions.count + reserved < maxSessions else { return false }
            reserved += 1
            return true
        }
    }

    /// Fills a reserved slot; false when the server closed meanwhile (the caller closes the session).
    func fill(_ id: String, with session: any WHEPSession, iceTag: String) -> Bool {
        lock.withLock {
            reserved -= 1
            guard !closed else { return false }
            sessions[id] = session
            iceTags[id] = iceTag
            return true
        }
    }

    /// The session and its ICE session's entity-tag.
    func sessionAndICETag(_ id: String) -> (session: any WHEPSession, iceTag: String)? {
        lock.withLock { sessions[id].flatMap { session in iceTags[id].map { (session, $0) } } }
    }

    /// A restart made a new ICE session; false when the session is gone.
    func replaceICETag(of id: String, with tag: String) -> Bool {
        lock.withLock {
            guard sessions[id] != nil else { return false }
            iceTags[id] = tag
            return true
        }
    }

    func release() {
        lock.withLock { reserved -= 1 }
    }

    func session(_ id: String) -> (any WHEPSession)? {
        lock.withLock { sessions[id] }
    }

    func remove(_ id: String) -> (any WHEPSession)? {
        lock.withLock {
            iceTags[id] = nil
            return sessions.removeValue(forKey: id)
        }
    }

    /// Refuses new sessions and hands back the current ones to close.
    func closeAll() -> [any WHEPSession] {
        lock.withLock {
            closed = true
            iceTags.removeAll()
            defer { sessions.removeAll() }
            return Array(sessions.values)
        }
    }
}
