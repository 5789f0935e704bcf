import MediaCore
import WHEP

/// A session that records what the endpoint asked of it.
final class FakeSession: WHEPSession, @unchecked Sendable {
    let resourceID: String
    let ended: @Sendable () -> Void
    private let lock = ThreadCondition()
    private var keyframes = 0
    private var closed = false

    init(resourceID: String, ended: @escaping @Sendable () -> Void) {
        self.resourceID = resourceID
        self.ended = ended
    }

    func requestKeyframe() { lock.withLock { keyframes += 1 } }
    func close() async { lock.withLock { closed = true } }

    var keyframeRequests: Int { lock.withLock { keyframes } }
    var isClosed: Bool { lock.withLock { closed } }
}

/// Answers any offer with a video m-line; rejects the rest as a real factory's SDP check would,
/// and fails with a non-offer error for an offer that says so.
final class FakeSessionFactory: WHEPSessionFactory, @unchecked Sendable {
    struct Broken: Error, CustomStringConvertible {
        var description: String { "ICE agent could not start" }
    }

    private let lock = ThreadCondition()
    private var made: [FakeSession] = []

    func answer(offer: String, resourceID: String, ended: @escaping @Sendable () -> Void) async throws -> WHEPAnswer {
        guard offer.hasPrefix("v=0") else { throw WHEPOfferRejected("SDP line 1: expected v=0") }
        guard offer.contains("m=video") else { throw WHEPOfferRejected("the offer has no video section") }
        if offer.contains("a=x-break") { throw Broken() }
        let session = FakeSession(resourceID: resourceID, ended: ended)
        lock.withLock { made.append(session) }
        return WHEPAnswer(sdp: "v=0\r\ns=answer \(resourceID)\r\n", session: session)
    }

    var sessions: [FakeSession] { lock.withLock { made } }
}
