import Hummingbird
import SDP

/// `PATCH /whep/<id>` (RFC 9725 sections 4.3.1 and 4.3.2, which WHEP takes over): an
/// `application/trickle-ice-sdpfrag` body (RFC 8840) with the viewer's candidates (trickle ICE,
/// 204) or with new ICE credentials (an ICE restart, 200 with the session's new fragment and a
/// new ETag). The session's ETag names its ICE session: a PATCH without `If-Match` gets 428, one
/// whose tags do not match 412 (RFC 9110 section 13.1.1, RFC 6585 section 3); a restart sends
/// `If-Match: *`. A fragment that does not parse gets 400 with the reason; the session and every
/// other viewer are untouched by anything refused.
extension WHEPServer {
    static let sdpFragmentType = "application/trickle-ice-sdpfrag"
    static let patchesPerSecond = 10.0
    static let patchBurst = 20

    func patch(_ request: Request, id: String) async -> Response {
        guard let (session, iceTag) = registry.sessionAndICETag(id) else { return Self.text(.notFound, "no such session") }
        let now = clock()
        guard patchLimiter.withLock({ $0.admit(nowNs: now) }) else {
            return Self.text(.tooManyRequests, "too many PATCH requests; try again in a second", headers: [.retryAfter: "1"])
        }
        guard WHEPContentType.mediaType(request.headers[.contentType]) == Self.sdpFragmentType else {
            return Self.text(.unsupportedMediaType, "a PATCH must be sent as Content-Type: \(Self.sdpFragmentType)")
        }
        guard let ifMatch = request.headers[.ifMatch] else {
            return Self.text(
                .preconditionRequired, "a PATCH needs If-Match: the session's ETag to trickle candidates, or * to restart ICE")
        }
        let condition = WHEPEntityTag.condition(ifMatch)
        guard condition != .malformed else { return Self.text(.badRequest, "If-Match is neither * nor a list of entity tags") }
        guard condition.matches(iceTag) else {
            return Self.text(.preconditionFailed, "If-Match does not name this session's ICE session (it was restarted)")
        }
        let text: String
        switch await Self.bodyText(of: request, limit: configuration.maxOfferBytes, named: "the fragment") {
        case .text(let body): text = body
        case .refused(let response): return response
        }
        let fragment: SDPFragment
        do {
            fragment = try SDPFragment(parsing: text)
        } catch {
            return Self.text(.badRequest, "the fragment is malformed: \(error)")
        }
        let answer: SDPFragment?
        do {
            answer = try await session.applyICEFragment(fragment)
        } catch {
            logger.info("PATCH not applied", metadata: ["resource": "\(id)", "reason": "\(error)"])
            return Self.text(.unprocessableContent, "the fragment could not be applied: \(error)")
        }
        guard let answer else { return Response(status: .noContent) }
        let newTag = WHEPEntityTag.make()
        guard registry.replaceICETag(of: id, with: newTag) else { return Self.text(.notFound, "no such session") }
        logger.info("viewer restarted ICE", metadata: ["resource": "\(id)"])
        return Response(
            status: .ok, headers: [.contentType: Self.sdpFragmentType, .eTag: newTag],
            body: .init(byteBuffer: ByteBuffer(string: answer.serialized())))
    }
}
