import RTP
import RTPSender
import RTPSession
import SDP
import Transport

/// What our side of the negotiation says and how the agreement becomes the RTP sender's
/// configuration; pure, so that both are tested without a connection.
struct SenderNegotiation: Sendable {
    let configuration: WebRTCSenderConfiguration
    let ssrc: UInt32
    /// Drawn even when RTX is off, so that the offer and the sender agree whatever the peer says.
    let rtxSSRC: UInt32

    init(configuration: WebRTCSenderConfiguration, rtxSSRC: UInt32 = .random(in: .min ... .max)) {
        self.configuration = configuration
        let ssrc = configuration.ssrc ?? .random(in: .min ... .max)
        self.ssrc = ssrc
        self.rtxSSRC = rtxSSRC == ssrc ? rtxSSRC &+ 1 : rtxSSRC
    }

    /// The feedback we act on (RFC 4585 section 4.2): NACK unless retransmission is off, PLI and
    /// FIR, transport-cc with its extension, and REMB.
    var feedback: [RTCPFeedback] {
        var feedback: [RTCPFeedback] = configuration.tuning.retransmission == .off ? [] : [.nack]
        feedback += [.pli, .fir]
        if configuration.transportCC { feedback.append(.transportCC) }
        feedback.append(.remb)
        return feedback
    }

    /// The extensions we write, with the ids of our offers: the playout delay only when the
    /// tuning asks for one; with simulcast the MID and the RID, and the repaired RID with RTX,
    /// which name the streams where no `a=ssrc` does (RFC 8853 section 5.5).
    var extensions: [HeaderExtensionMapping] {
        var mappings: [HeaderExtensionMapping] = []
        if configuration.absoluteSendTime {
            mappings.append(HeaderExtensionMapping(id: RTPHeaderExtensionURI.defaultAbsoluteSendTimeID, uri: RTPHeaderExtensionURI.absoluteSendTime))
        }
        if configuration.transportCC {
            mappings.append(
                HeaderExtensionMapping(
                    id: RTPHeaderExtensionURI.defaultTransportWideSequenceNumberID, uri: RTPHeaderExtensionURI.transportWideSequenceNumber))
        }
        if configuration.absoluteCaptureTime {
            mappings.append(
                HeaderExtensionMapping(id: RTPHeaderExtensionURI.defaultAbsoluteCaptureTimeID, uri: RTPHeaderExtensionURI.absoluteCaptureTime))
        }
        if configuration.tuning.playoutDelay != nil {
            mappings.append(HeaderExtensionMapping(id: RTPHeaderExtensionURI.defaultPlayoutDelayID, uri: RTPHeaderExtensionURI.playoutDelay))
        }
        if !configuration.simulcast.isEmpty {
            mappings.append(HeaderExtensionMapping(id: RTPHeaderExtensionURI.defaultMIDID, uri: RTPHeaderExtensionURI.mid))
            mappings.append(HeaderExtensionMapping(id: RTPHeaderExtensionURI.defaultRTPStreamIDID, uri: RTPHeaderExtensionURI.rtpStreamID))
            if configuration.tuning.retransmission == .rtx {
                mappings.append(
                    HeaderExtensionMapping(id: RTPHeaderExtensionURI.defaultRepairedRTPStreamIDID, uri: RTPHeaderExtensionURI.repairedRTPStreamID))
            }
        }
        return mappings
    }

    var localVideoSender: LocalVideoSender {
        LocalVideoSender(
            ssrc: ssrc, rtxSSRC: configuration.tuning.retransmission == .rtx ? rtxSSRC : nil, cname: configuration.tuning.cname,
            streamID: MediaStreamID(streamID: configuration.streamID, trackID: "video"), feedback: feedback,
            extensions: extensions, direction: .sendonly, payloadType: configuration.payloadType,
            rtxPayloadType: configuration.rtxPayloadType,
            fec: configuration.tuning.fec == .off
                ? nil : FECFormats(red: configuration.fecPayloadTypes.red, ulpfec: configuration.fecPayloadTypes.ulpfec),
            simulcast: configuration.simulcast)
    }

    /// The RTP sender for what was agreed: the peer's payload types and extension ids, RTX only
    /// when both sides have it (else resend when the peer NACKs), FEC when both have RED and
    /// ULPFEC, SRTP with the DTLS keys of each direction.
    func senderConfiguration(
        for negotiated: NegotiatedVideo, outboundKey: SRTPMasterKey, inboundKey: SRTPMasterKey, transport: any MediaTransport
    ) -> RTPSenderConfiguration {
        var tuning = configuration.tuning
        if !negotiated.feedback.contains(.nack) {
            tuning.retransmission = .off
        } else if tuning.retransmission == .rtx && negotiated.rtxPayloadType == nil {
            tuning.retransmission = .resend
        }
        return RTPSenderConfiguration(
            route: .transport(transport), srtpKey: outboundKey, feedbackSRTPKey: inboundKey,
            session: SendSessionConfiguration(
                tuning: tuning, encodings: encodingStreams(negotiated.sentEncodings, rtx: tuning.retransmission == .rtx),
                payloadType: negotiated.payloadType, rtxPayloadType: tuning.retransmission == .rtx ? negotiated.rtxPayloadType : nil,
                extensions: Self.extensionIDs(negotiated.extensions),
                fec: tuning.fec == .off ? nil : negotiated.fec.map { FECPayloadTypes(red: $0.red, ulpfec: $0.ulpfec) },
                mid: negotiated.mid.flatMap(MediaIdentification.init)))
    }

    /// What can be sent of what the answer kept: simulcast streams are told apart by their RID
    /// alone (no `a=ssrc` names them, RFC 8853 section 5.5), so an answer that keeps several
    /// encodings but not the RID extension gets the highest of them alone, without RID, as an
    /// answer without `a=simulcast` does.
    static func sendable(_ negotiated: NegotiatedVideo) -> NegotiatedVideo {
        guard negotiated.sentEncodings.count > 1, !negotiated.extensions.contains(where: { $0.uri == RTPHeaderExtensionURI.rtpStreamID }),
            let highest = negotiated.sentEncodings.last
        else { return negotiated }
        var sendable = negotiated
        sendable.sentEncodings = [SentEncoding(encodingIndex: highest.encodingIndex)]
        return sendable
    }

    /// One `EncodingStreams` per encoding sent, in the same order (lowest index first), with its
    /// RID. The first takes `ssrc` and `rtxSSRC`, which the `a=ssrc` lines of a description
    /// without simulcast announce; the others, which no `a=ssrc` names (RFC 8853 section 5.5),
    /// take random SSRCs (RFC 3550 section 8.1), all distinct.
    func encodingStreams(_ sent: [SentEncoding], rtx: Bool) -> [EncodingStreams] {
        var used: Set<UInt32> = [ssrc, rtxSSRC]
        func unusedSSRC() -> UInt32 {
            while true {
                let ssrc = UInt32.random(in: .min ... .max)
                if used.insert(ssrc).inserted { return ssrc }
            }
        }
        return sent.enumerated().map { position, encoding in
            var media = RTPSessionParameters.random()
            media.ssrc = position == 0 ? ssrc : unusedSSRC()
            let rtxSSRC = position == 0 ? rtxSSRC : unusedSSRC()
            return EncodingStreams(
                encodingIndex: encoding.encodingIndex, media: media, rtxSSRC: rtx ? rtxSSRC : nil,
                rid: encoding.rid.flatMap(RTPStreamID.init))
        }
    }

    /// The agreed ids of the extensions the sender writes; others are left out.
    static func extensionIDs(_ mappings: [HeaderExtensionMapping]) -> HeaderExtensionIDs {
        func id(_ uri: String) -> UInt8? { mappings.first { $0.uri == uri }?.id }
        return HeaderExtensionIDs(
            absoluteSendTime: id(RTPHeaderExtensionURI.absoluteSendTime), videoOrientation: id(RTPHeaderExtensionURI.videoOrientation),
            transportWideSequenceNumber: id(RTPHeaderExtensionURI.transportWideSequenceNumber),
            absoluteCaptureTime: id(RTPHeaderExtensionURI.absoluteCaptureTime), playoutDelay: id(RTPHeaderExtensionURI.playoutDelay),
            mid: id(RTPHeaderExtensionURI.mid), rtpStreamID: id(RTPHeaderExtensionURI.rtpStreamID),
            repairedRTPStreamID: id(RTPHeaderExtensionURI.repairedRTPStreamID))
    }
}
