import PlainRTP
import RTP
import RTPSession
import Testing
import Transport

/// The SDP a plan writes, line for line (RFC 8866, RFC 3605, RFC 4585, RFC 4588, RFC 5576,
/// RFC 8285, RFC 4568).
@Suite struct SessionPlanTests {
    @Test func feedbackProfileWithAFixedSSRC() throws {
        let destination = try Endpoint(parsing: "192.0.2.10:5004")
        let plan = SessionPlan(
            destination: destination, rtcpDestination: destination.defaultRTCPEndpoint, fixedSSRC: 0x1234_5678,
            extensions: HeaderExtensionIDs(transportWideSequenceNumber: 3), frameRate: 30)
        #expect(plan.sessionDescription.serialized() == [
            "v=0", "o=- 305419896 1 IN IP4 192.0.2.10", "s=camrtp", "c=IN IP4 192.0.2.10", "t=0 0",
            "m=video 5004 RTP/AVPF 96", "a=rtpmap:96 VP8/90000", "a=rtcp-fb:96 nack", "a=rtcp-fb:96 nack pli",
            "a=rtcp-fb:96 ccm fir", "a=rtcp-fb:96 transport-cc", "a=rtcp:5005",
            "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01", "a=framerate:30",
            "a=ssrc:305419896 cname:camrtp", "a=sendonly", "",
        ].joined(separator: "\r\n"))
    }

    @Test func rtxGetsItsPayloadTypeAndAnSSRCGroup() throws {
        let destination = try Endpoint(parsing: "192.0.2.10:5004")
        let plan = SessionPlan(
            destination: destination, rtcpDestination: destination.defaultRTCPEndpoint, rtxPayloadType: 97, fixedSSRC: 1000,
            tuning: SenderTuning(retransmission: .rtx))
        let sdp = plan.sessionDescription.serialized()
        #expect(sdp.contains("m=video 5004 RTP/AVPF 96 97\r\n"))
        #expect(sdp.contains("a=rtpmap:97 rtx/90000\r\na=fmtp:97 apt=96\r\n"))
        #expect(sdp.contains("a=ssrc-group:FID 1000 1001\r\n"))
        #expect(sdp.contains("a=ssrc:1001 cname:camrtp\r\n"))
        let session = plan.senderConfiguration().session
        #expect(session.tuning.retransmission == .rtx)
        #expect(session.rtxPayloadType == 97 && session.encodings.map(\.rtxSSRC) == [1001], "the sender uses what the SDP announces")
    }

    /// RED and ULPFEC take the first dynamic payload types VP8 and RTX leave, in the SDP and on
    /// the wire alike.
    @Test(arguments: [(Retransmission.rtx, 96, 97, 98, 99), (.resend, 96, 97, 97, 98), (.rtx, 98, 96, 97, 99)] as [(Retransmission, Int, Int, Int, Int)])
    func fecTakesTheFreePayloadTypes(retransmission: Retransmission, payloadType: Int, rtx: Int, red: Int, ulpfec: Int) throws {
        let destination = try Endpoint(parsing: "192.0.2.10:5004")
        let plan = SessionPlan(
            destination: destination, rtcpDestination: destination.defaultRTCPEndpoint, payloadType: UInt8(payloadType),
            rtxPayloadType: UInt8(rtx), tuning: SenderTuning(retransmission: retransmission, fec: .auto))
        let sdp = plan.sessionDescription.serialized()
        #expect(sdp.contains("a=rtpmap:\(red) red/90000\r\na=rtpmap:\(ulpfec) ulpfec/90000\r\n"), "\(sdp)")
        #expect(plan.senderConfiguration().session.fec == FECPayloadTypes(red: UInt8(red), ulpfec: UInt8(ulpfec)))
        try plan.validate()

        var off = plan
        off.tuning.fec = .off
        #expect(!off.sessionDescription.serialized().contains("red/90000") && off.senderConfiguration().session.fec == nil)
    }

    @Test func withoutRetransmissionNoNACKIsOffered() throws {
        let destination = try Endpoint(parsing: "192.0.2.10:5004")
        let plan = SessionPlan(
            destination: destination, rtcpDestination: destination.defaultRTCPEndpoint, tuning: SenderTuning(retransmission: .off))
        let sdp = plan.sessionDescription.serialized()
        #expect(!sdp.contains("a=rtcp-fb:96 nack\r\n"))
        #expect(sdp.contains("a=rtcp-fb:96 nack pli\r\n"))
    }

    @Test func srtpOverIPv6WithRTCPMuxAndExtensions() throws {
        let key = try SRTPMasterKey(suite: .aesCM128HMACSHA1_32, bytes: Array(0..<30))
        let plan = SessionPlan(
            destination: try Endpoint(parsing: "[::1]:6000"), rtcpDestination: nil, payloadType: 100, srtpKey: key,
            extensions: HeaderExtensionIDs(absoluteSendTime: 2, videoOrientation: 13))
        #expect(plan.sessionDescription.serialized() == [
            "v=0", "o=- 0 1 IN IP6 ::1", "s=camrtp", "c=IN IP6 ::1", "t=0 0",
            "m=video 6000 RTP/SAVPF 100", "a=rtpmap:100 VP8/90000", "a=rtcp-fb:100 nack", "a=rtcp-fb:100 nack pli",
            "a=rtcp-fb:100 ccm fir", "a=rtcp-mux",
            "a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
            "a=extmap:13 urn:3gpp:video-orientation",
            "a=crypto:1 AES_CM_128_HMAC_SHA1_32 inline:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd",
            "a=sendonly", "",
        ].joined(separator: "\r\n"))
    }

    @Test func theMTUMustCarryTheExtensionsTheTagAndTheRTXPrefix() throws {
        let key = SRTPMasterKey(randomFor: .aesCM128HMACSHA1_80)
        let destination = try Endpoint(parsing: "127.0.0.1:5004")
        // 12 header + 8 extension block (CVO) + 6 descriptor (a temporal layer's) + 1 payload + 10 tag = 37.
        let fits = SessionPlan(
            destination: destination, rtcpDestination: nil, srtpKey: key, extensions: HeaderExtensionIDs(videoOrientation: 13),
            tuning: SenderTuning(mtu: 37))
        #expect(throws: Never.self) { try fits.validate() }
        var tooSmall = fits
        tooSmall.tuning.mtu = 36
        #expect(throws: SendSessionError.mtuTooSmall(mtu: 36, minimum: 37)) { try tooSmall.validate() }
        var withRTX = fits
        withRTX.tuning.retransmission = .rtx
        #expect(throws: SendSessionError.mtuTooSmall(mtu: 37, minimum: 39), "RTX adds the 2-byte original sequence number") {
            try withRTX.validate()
        }
    }

    /// abs-capture-time is announced with its ID; the playout delay only when one is asked for.
    @Test func theLatencyExtensionsAreAnnouncedWhenTheySend() throws {
        let destination = try Endpoint(parsing: "192.0.2.10:5004")
        let extensions = HeaderExtensionIDs(absoluteCaptureTime: 9, playoutDelay: 12)
        let withoutDelay = SessionPlan(destination: destination, rtcpDestination: destination.defaultRTCPEndpoint, extensions: extensions)
        let lines = withoutDelay.sessionDescription.lines()
        #expect(lines.contains("a=extmap:9 http://www.webrtc.org/experiments/rtp-hdrext/abs-capture-time"))
        #expect(!lines.contains { $0.contains("playout-delay") })

        var withDelay = withoutDelay
        withDelay.tuning.playoutDelay = PlayoutDelay(minimumMs: 0, maximumMs: 100)
        #expect(withDelay.sessionDescription.lines().contains("a=extmap:12 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay"))
        let session = withDelay.senderConfiguration().session
        #expect(session.extensions == extensions && session.tuning.playoutDelay == withDelay.tuning.playoutDelay)
    }
}
