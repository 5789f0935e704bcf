import RTP
import RTPSender
import RTPSession
import SDP
import Testing
import Transport
@testable import WebRTC

/// What we offer and how the peer's answer becomes the RTP sender's configuration.
@Suite("WebRTC: sender negotiation")
struct SenderNegotiationTests {
    final class NoTransport: MediaTransport {
        func send(_ datagram: UnsafeRawBufferPointer) -> Bool { false }
        func startReceiving(_ receive: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) {}
    }

    static func negotiated(
        payloadType: UInt8 = 100, rtx: UInt8? = 101, fec: FECFormats? = nil, feedback: [RTCPFeedback], extensions: [HeaderExtensionMapping]
    ) -> NegotiatedVideo {
        NegotiatedVideo(
            mediaIndex: 0, mid: "0", payloadType: payloadType, rtxPayloadType: rtx, fec: fec, feedback: feedback, extensions: extensions,
            direction: .sendonly, rtcpReducedSize: true, localDTLSRole: .server,
            remote: RemoteTransportParameters(
                iceCredentials: ICEParameters(usernameFragment: "abcd", password: "0123456789012345678901"),
                fingerprints: [Fingerprint(hashFunction: .sha256, digest: [UInt8](repeating: 1, count: 32))], setup: .active))
    }

    @Test func offersRTXFeedbackAndBothExtensions() {
        let negotiation = SenderNegotiation(configuration: WebRTCSenderConfiguration(ssrc: 0x1234), rtxSSRC: 0x5678)
        let local = negotiation.localVideoSender
        #expect(local.ssrc == 0x1234)
        #expect(local.rtxSSRC == 0x5678)
        #expect(local.direction == .sendonly)
        #expect(local.feedback == [.nack, .pli, .fir, .transportCC, .remb])
        #expect(local.extensions.map(\.uri) == [
            RTPHeaderExtensionURI.absoluteSendTime, RTPHeaderExtensionURI.transportWideSequenceNumber, RTPHeaderExtensionURI.absoluteCaptureTime,
        ])

        let plain = SenderNegotiation(
            configuration: WebRTCSenderConfiguration(
                tuning: SenderTuning(retransmission: .off), transportCC: false, absoluteSendTime: false, absoluteCaptureTime: false))
        #expect(plain.localVideoSender.rtxSSRC == nil)
        #expect(plain.localVideoSender.feedback == [.pli, .fir, .remb])
        #expect(plain.localVideoSender.extensions.isEmpty)
    }

    @Test func theSenderTakesThePeersPayloadTypesIDsAndKeys() throws {
        let negotiation = SenderNegotiation(configuration: WebRTCSenderConfiguration(ssrc: 7), rtxSSRC: 8)
        let outbound = SRTPMasterKey(randomFor: .aeadAES128GCM)
        let inbound = SRTPMasterKey(randomFor: .aeadAES128GCM)
        let video = Self.negotiated(
            feedback: [.nack, .pli, .transportCC],
            extensions: [HeaderExtensionMapping(id: 5, uri: RTPHeaderExtensionURI.transportWideSequenceNumber)])
        let configuration = negotiation.senderConfiguration(for: video, outboundKey: outbound, inboundKey: inbound, transport: NoTransport())
        #expect(configuration.session.payloadType == 100)
        #expect(configuration.session.encodings.map(\.media.ssrc) == [7])
        #expect(configuration.session.tuning.retransmission == .rtx)
        #expect(configuration.session.rtxPayloadType == 101 && configuration.session.encodings.map(\.rtxSSRC) == [8])
        #expect(configuration.session.extensions == HeaderExtensionIDs(transportWideSequenceNumber: 5))
        #expect(configuration.srtpKey == outbound)
        #expect(configuration.feedbackSRTPKey == inbound)
        try configuration.validate()
    }

    /// The playout delay is offered only when the tuning asks for one; both latency extensions
    /// go to the sender under the peer's IDs, with the delay to write.
    @Test func theLatencyExtensionsAreOfferedAndTakenUnderThePeersIDs() throws {
        let delay = try #require(PlayoutDelay(minimumMs: 0, maximumMs: 200))
        let negotiation = SenderNegotiation(configuration: WebRTCSenderConfiguration(tuning: SenderTuning(playoutDelay: delay)))
        #expect(negotiation.localVideoSender.extensions.suffix(2) == [
            HeaderExtensionMapping(id: 9, uri: RTPHeaderExtensionURI.absoluteCaptureTime),
            HeaderExtensionMapping(id: 12, uri: RTPHeaderExtensionURI.playoutDelay),
        ])
        let key = SRTPMasterKey(randomFor: .aesCM128HMACSHA1_80)
        let video = Self.negotiated(feedback: [.nack], extensions: [
            HeaderExtensionMapping(id: 5, uri: RTPHeaderExtensionURI.playoutDelay),
            HeaderExtensionMapping(id: 13, uri: RTPHeaderExtensionURI.absoluteCaptureTime),
        ])
        let session = negotiation.senderConfiguration(for: video, outboundKey: key, inboundKey: key, transport: NoTransport()).session
        #expect(session.extensions == HeaderExtensionIDs(absoluteCaptureTime: 13, playoutDelay: 5))
        #expect(session.tuning.playoutDelay == delay)
    }

    @Test func retransmissionFollowsWhatThePeerAccepted() {
        let negotiation = SenderNegotiation(configuration: WebRTCSenderConfiguration(), rtxSSRC: 9)
        let key = SRTPMasterKey(randomFor: .aesCM128HMACSHA1_80)
        func mode(_ video: NegotiatedVideo) -> Retransmission {
            negotiation.senderConfiguration(for: video, outboundKey: key, inboundKey: key, transport: NoTransport()).session.tuning.retransmission
        }
        #expect(mode(Self.negotiated(rtx: nil, feedback: [.nack, .pli], extensions: [])) == .resend)
        #expect(mode(Self.negotiated(rtx: 101, feedback: [.pli], extensions: [])) == .off)
        let off = SenderNegotiation(configuration: WebRTCSenderConfiguration(tuning: SenderTuning(retransmission: .off)), rtxSSRC: 9)
        #expect(
            off.senderConfiguration(
                for: Self.negotiated(feedback: [.nack], extensions: []), outboundKey: key, inboundKey: key, transport: NoTransport()
            ).session.tuning.retransmission == .off)
    }

    /// FEC is offered unless it is off, and used with the peer's payload types when it has both
    /// RED and ULPFEC.
    @Test func fecFollowsWhatThePeerAccepted() {
        let key = SRTPMasterKey(randomFor: .aesCM128HMACSHA1_80)
        let auto = SenderNegotiation(configuration: WebRTCSenderConfiguration(), rtxSSRC: 9)
        #expect(auto.localVideoSender.fec == FECFormats(red: 98, ulpfec: 99))
        func session(_ negotiation: SenderNegotiation, _ video: NegotiatedVideo) -> SendSessionConfiguration {
            negotiation.senderConfiguration(for: video, outboundKey: key, inboundKey: key, transport: NoTransport()).session
        }
        let agreed = session(auto, Self.negotiated(fec: FECFormats(red: 118, ulpfec: 120), feedback: [.nack], extensions: []))
        #expect(agreed.fec == FECPayloadTypes(red: 118, ulpfec: 120) && agreed.tuning.fec == .auto)
        #expect(session(auto, Self.negotiated(feedback: [.nack], extensions: [])).fec == nil)

        let off = SenderNegotiation(configuration: WebRTCSenderConfiguration(tuning: SenderTuning(retransmission: .rtx, fec: .off)), rtxSSRC: 9)
        #expect(off.localVideoSender.fec == nil)
        #expect(session(off, Self.negotiated(fec: FECFormats(red: 118, ulpfec: 120), feedback: [.nack], extensions: [])).fec == nil)
    }

    @Test func theRTXSSRCNeverEqualsTheMediaSSRC() {
        let negotiation = SenderNegotiation(configuration: WebRTCSenderConfiguration(ssrc: 42), rtxSSRC: 42)
        #expect(negotiation.rtxSSRC != negotiation.ssrc)
    }
}
