/// Which side of the offer/answer exchange a description is (RFC 3264, RFC 8829 section 4.1.8).
public enum SDPType: String, Sendable, Hashable {
    case offer, answer
}

/// Why an offer cannot be answered, or an answer does not fit our offer. Each names the
/// description at fault, as in "the offer has no VP8".
public enum SDPNegotiationError: Error, Sendable, Hashable, CustomStringConvertible {
    case noVideoSection(SDPType)
    case noMatchingCodec(String, in: SDPType)
    /// The video section is not secure RTP (WebRTC needs DTLS-SRTP, RFC 8827 section 6.5).
    case insecureTransport(TransportProtocol, in: SDPType)
    case missingICECredentials(SDPType)
    case missingFingerprint(SDPType)
    case missingSetupRole(SDPType)
    /// `holdconn` in an offer, or anything but `active`/`passive` in an answer (RFC 8842 section 5).
    case invalidSetupRole(SetupRole, in: SDPType)
    case rtcpMuxRequired(SDPType)
    /// The offer's direction leaves nothing for the direction we want.
    case directionConflict(offered: MediaDirection, wanted: MediaDirection)
    /// The answer's direction is not allowed for the offered one, or makes the section inactive.
    case invalidAnswerDirection(offered: MediaDirection, answered: MediaDirection)
    case mediaSectionCountMismatch(offered: Int, answered: Int)
    case mediaSectionMismatch(index: Int, offeredMid: String?, answeredMid: String?)
    case videoRejected
    case protocolMismatch(offered: TransportProtocol, answered: TransportProtocol)
    case unofferedPayloadType(UInt8)
    /// RFC 8829 section 5.3.1: the answer uses the offer's extension ids.
    case unofferedExtension(id: UInt8, uri: String)
    /// The answer's `a=rid` or `a=simulcast` names a RID our offer did not (RFC 8853 section 5.3).
    case unofferedRID(String)
    /// The answer's `a=rid` for a stream we send must say `recv` (RFC 8851 section 4).
    case invalidRIDDirection(rid: String, found: RIDDirection)
    /// The answer's `a=simulcast` receives no stream, or pauses every one.
    case noSimulcastStreamToSend

    public var description: String {
        switch self {
        case .noVideoSection(let type): "the \(type) has no video section"
        case .noMatchingCodec(let codec, let type): "the \(type) has no \(codec)"
        case .insecureTransport(let transport, let type):
            "the \(type)'s video uses \(transport); WebRTC needs DTLS-SRTP such as UDP/TLS/RTP/SAVPF"
        case .missingICECredentials(let type): "the \(type) has no a=ice-ufrag and a=ice-pwd"
        case .missingFingerprint(let type): "the \(type) has no a=fingerprint"
        case .missingSetupRole(let type): "the \(type) has no a=setup"
        case .invalidSetupRole(let role, let type): "a=setup:\(role.rawValue) is not allowed in the \(type)"
        case .rtcpMuxRequired(let type): "the \(type)'s video has no a=rtcp-mux"
        case .directionConflict(let offered, let wanted):
            "the offer's video is \(offered.rawValue) and we want \(wanted.rawValue): no media would flow"
        case .invalidAnswerDirection(let offered, let answered):
            "the answer's \(answered.rawValue) does not fit the offer's \(offered.rawValue)"
        case .mediaSectionCountMismatch(let offered, let answered):
            "the offer has \(offered) m= sections and the answer \(answered)"
        case .mediaSectionMismatch(let index, let offeredMid, let answeredMid):
            "m= section \(index) is mid \(offeredMid ?? "(none)") in the offer and \(answeredMid ?? "(none)") in the answer"
        case .videoRejected: "the answer rejects the video section (port 0)"
        case .protocolMismatch(let offered, let answered): "the offer's video uses \(offered) and the answer's \(answered)"
        case .unofferedPayloadType(let payloadType): "the answer uses payload type \(payloadType), which the offer did not list"
        case .unofferedExtension(let id, let uri): "the answer maps extension id \(id) to \(uri), which the offer did not"
        case .unofferedRID(let rid): "the answer names rid \(quoted(rid)), which the offer did not: simulcast streams are the offer's a=rid lines"
        case .invalidRIDDirection(let rid, let found):
            "the answer has a=rid:\(quoted(rid)) \(found.rawValue); a stream we send is recv in the answer"
        case .noSimulcastStreamToSend: "the answer's a=simulcast:recv leaves no stream unpaused: nothing would be sent"
        }
    }
}
