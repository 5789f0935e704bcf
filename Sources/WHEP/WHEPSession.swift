import SDP

/// The seam between the HTTP endpoint and the media: the server hands each offer to a factory
/// and keeps the session it returns under a resource id, so the endpoint is tested with a fake
/// factory and the media side with no HTTP at all.
public protocol WHEPSessionFactory: Sendable {
    /// Answers a viewer's SDP offer (WHEP: the client offers, recvonly). `ended` is for the
    /// session to call when it ends on its own (ICE or DTLS failed, the viewer went away), so the
    /// server forgets it. Throw `WHEPOfferRejected` for an offer that cannot be answered (400).
    func answer(offer: String, resourceID: String, ended: @escaping @Sendable () -> Void) async throws -> WHEPAnswer
}

/// A viewer's media session as the endpoint needs it.
public protocol WHEPSession: AnyObject, Sendable {
    /// The viewer asked for a keyframe out of band (the viewer page's button: a page cannot send
    /// a PLI of its own through `RTCPeerConnection`).
    func requestKeyframe()
    /// A PATCHed `application/trickle-ice-sdpfrag` (RFC 9725 section 4.3): new ICE credentials
    /// restart ICE and return the session's fragment for the 200; otherwise the candidates are
    /// added and nil is returned (204). Throw `WHEPPatchRejected` for what cannot be applied.
    func applyICEFragment(_ fragment: SDPFragment) async throws -> SDPFragment?
    /// Ends the session: DELETE, server shutdown.
    func close() async
}

/// The answer to send back, with the session it belongs to.
public struct WHEPAnswer: Sendable {
    public var sdp: String
    public var session: any WHEPSession

    public init(sdp: String, session: any WHEPSession) {
        self.sdp = sdp
        self.session = session
    }
}

/// An offer the factory cannot answer: malformed SDP, no VP8, no ICE credentials, no DTLS
/// fingerprint. The reason goes back to the client in the 400's body.
public struct WHEPOfferRejected: Error, Sendable, CustomStringConvertible {
    public var reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}

/// A PATCH the session cannot apply (a closed connection, a restart ICE refused): 422 with the
/// reason, and the session keeps its current ICE session (RFC 9725 section 4.3.2).
public struct WHEPPatchRejected: Error, Sendable, CustomStringConvertible {
    public var reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}
