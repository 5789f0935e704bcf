/// Media direction attribute (RFC 8866 section 6.7, offer/answer rules in RFC 3264 section 6.1),
/// from the writer's side. Absent means `sendrecv`. GStreamer's sdpdemux and ffmpeg ignore it;
/// RTSP-style readers treat `recvonly` as a back channel and skip it.
public enum MediaDirection: String, Sendable, Hashable, CaseIterable {
    case sendrecv, sendonly, recvonly, inactive

    public init(sends: Bool, receives: Bool) {
        switch (sends, receives) {
        case (true, true): self = .sendrecv
        case (true, false): self = .sendonly
        case (false, true): self = .recvonly
        case (false, false): self = .inactive
        }
    }

    public var sends: Bool { self == .sendrecv || self == .sendonly }
    public var receives: Bool { self == .sendrecv || self == .recvonly }

    /// The same stream seen from the other end: `sendonly` becomes `recvonly`.
    public var reversed: MediaDirection { MediaDirection(sends: receives, receives: sends) }

    /// What an answerer that wants `wanted` may answer to `self` (RFC 3264 section 6.1): it sends
    /// only what the offerer receives and receives only what the offerer sends.
    public func answer(wanting wanted: MediaDirection) -> MediaDirection {
        MediaDirection(sends: wanted.sends && receives, receives: wanted.receives && sends)
    }

    /// Whether `answer` is a legal answer to this offered direction.
    public func permits(answer: MediaDirection) -> Bool {
        (!answer.sends || receives) && (!answer.receives || sends)
    }
}
