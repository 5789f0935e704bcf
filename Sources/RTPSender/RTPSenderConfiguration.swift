import RTPSession
import Transport

/// Everything an `RTPVideoSender` needs, decided before it starts: where the stream goes (UDP
/// sockets of its own, or a transport such as a WebRTC connection), how it is protected, and
/// the send session it runs (what the packets look like, how feedback is answered).
public struct RTPSenderConfiguration: Sendable {
    public var route: SenderRoute
    /// The key our packets are protected with; nil sends plain RTP.
    public var srtpKey: SRTPMasterKey?
    /// The key the peer's SRTCP is protected with, when it differs from ours (DTLS-SRTP derives
    /// one per direction, RFC 5764 §4.2); nil uses `srtpKey`, as SDES sessions do.
    public var feedbackSRTPKey: SRTPMasterKey?
    /// Accept feedback that is not SRTCP on an SRTP session (Janus sends plain RTCP).
    public var acceptsPlainRTCP: Bool
    public var session: SendSessionConfiguration

    public init(
        route: SenderRoute, srtpKey: SRTPMasterKey? = nil, feedbackSRTPKey: SRTPMasterKey? = nil, acceptsPlainRTCP: Bool = false,
        session: SendSessionConfiguration = SendSessionConfiguration()
    ) {
        self.route = route
        self.srtpKey = srtpKey
        self.feedbackSRTPKey = feedbackSRTPKey
        self.acceptsPlainRTCP = acceptsPlainRTCP
        self.session = session
    }

    /// Bytes every packet keeps free for the SRTP tag.
    public var protectionOverhead: Int { srtpKey?.suite.rtpAuthenticationTagLength ?? 0 }

    /// Checks what would stop the session: SSRCs, RTX, extension IDs, and an MTU that carries
    /// the headers, a byte of payload, the SRTP tag and the RTX prefix.
    public func validate() throws(SendSessionError) {
        try session.validate(protectionOverhead: protectionOverhead)
    }
}
