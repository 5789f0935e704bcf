import MediaCore
import SDP
import WHEP

/// A session that records what the endpoint asked of it.
final class FakeSession: WHEPSession, @unchecked Sendable {
    let resourceID: String
    let ended: @Sendable () -> Void
    private let lock = ThreadCondition()
    private var keyframes = 0
    private var closed = false
    private var fragments: [SDPFragment] = []
    /// The viewer's ICE credentials, as the offer would have set them.
    private var remoteCredentials: ICEParameters? = ICEParameters(usernameFragment: "view", password: "viewerpasswordviewerpass")

    init(resourceID: String, ended: @escaping @Sendable () -> Void) {
        self.resourceID = resourceID
        self.ended = ended
    }

    func requestKeyframe() { lock.withLock { keyframes += 1 } }
    func close() async { lock.withLock { closed = true } }

    /// Restarts when the credentials change (answering with `restartAnswer`), else takes the
    /// candidates; `a=x-refuse` in a section's m= line is refused as a closed connection would be.
    func applyICEFragment(_ fragment: SDPFragment) async throws -> SDPFragment? {
        if fragment.sections.contains(where: { $0.mediaLine.contains("x-refuse") }) { throw WHEPPatchRejected("the WebRTC connection is closed") }
        return lock.withLock {
            fragments.append(fragment)
            guard let credentials = fragment.iceCredentials, credentials != remoteCredentials else { return nil }
            remoteCredentials = credentials
            return Self.restartAnswer
        }
    }

    static let restartAnswer = SDPFragment(sections: [
        SDPFragment.Section(
            mediaLine: "video 9 UDP/TLS/RTP/SAVPF 96", mid: "0",
            iceCredentials: ICEParameters(usernameFragment: "srv2", password: "serverpasswordserverpass"), endOfCandidates: true),
    ])

    var keyframeRequests: Int { lock.withLock { keyframes } }
    var receivedFragments: [SDPFragment] { lock.withLock { fragments } }
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
