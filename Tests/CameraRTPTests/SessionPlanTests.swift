import CameraRTP
import Testing
import Transport

/// The SDP a plan writes, line for line (RFC 8866, RFC 3605, RFC 5576, RFC 8285, RFC 4568).
@Suite struct SessionPlanTests {
    @Test func plainRTPWithAFixedSSRC() throws {
        let destination = try Endpoint(parsing: "192.0.2.10:5004")
        let plan = SessionPlan(
            destination: destination, rtcpDestination: destination.defaultRTCPEndpoint, fixedSSRC: 0x1234_5678, frameRate: 30)
        #expect(plan.sessionDescription.serialized() == [
            "v=0", "o=- 305419896 1 IN IP4 192.0.2.10", "s=camrtp", "c=IN IP4 192.0.2.10", "t=0 0",
            "m=video 5004 RTP/AVP 96", "a=rtpmap:96 VP8/90000", "a=rtcp:5005", "a=framerate:30",
            "a=ssrc:305419896 cname:camrtp", "a=sendonly", "",
        ].joined(separator: "\r\n"))
    }

    @Test func srtpOverIPv6WithRTCPMuxAndExtensions() throws {
        let key = try SRTPMasterKey(suite: .aesCM128HMACSHA1_32, bytes: Array(0..<30))
        let plan = SessionPlan(
            destination: try Endpoint(parsing: "[::1]:6000"), rtcpDestination: nil, payloadType: 100, srtpKey: key,
            videoOrientationExtensionID: 13, absoluteSendTimeExtensionID: 2)
        #expect(plan.sessionDescription.serialized() == [
            "v=0", "o=- 0 1 IN IP6 ::1", "s=camrtp", "c=IN IP6 ::1", "t=0 0",
            "m=video 6000 RTP/SAVP 100", "a=rtpmap:100 VP8/90000", "a=rtcp-mux",
            "a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
            "a=extmap:13 urn:3gpp:video-orientation",
            "a=crypto:1 AES_CM_128_HMAC_SHA1_32 inline:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd",
            "a=sendonly", "",
        ].joined(separator: "\r\n"))
    }

    @Test func theMTUMustCarryTheExtensionsAndTheTag() throws {
        let key = SRTPMasterKey(randomFor: .aesCM128HMACSHA1_80)
        let plan = SessionPlan(
            destination: try Endpoint(parsing: "127.0.0.1:5004"), rtcpDestination: nil, mtu: 30, srtpKey: key,
            videoOrientationExtensionID: 13)
        #expect(throws: (any Error).self) { try plan.validate() }
        #expect(plan.payloaderConfiguration.srtpOverhead == 10)
    }
}
