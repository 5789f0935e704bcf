import Foundation
import TestSupport
import SDP
import Testing

/// Base64 of 30 bytes (16-byte key ‖ 14-byte salt): RFC 3711 Appendix B.3's master key and salt.
private let testKey = InlineKey(base64: "4fl6DT4Bi+DWT6MsBt5BOQ7Gda1Jiv7rtpYLOqvm")

private func session(
    _ connection: ConnectionAddress, sessionID: UInt64 = 4_242, video: PlainRTPVideo
) -> SessionDescription {
    SessionDescription(origin: Origin(sessionID: sessionID, address: connection), connection: connection, video: video)
}

@Suite("SDP writer golden text")
struct SessionDescriptionGoldenTests {
    @Test func plainRTPToIPv4() {
        let sdp = session(.ipv4("127.0.0.1"), video: PlainRTPVideo(port: 5004, rtcp: .port(5005), frameRate: 30))
        #expect(sdp.serialized() == """
            v=0\r
            o=- 4242 1 IN IP4 127.0.0.1\r
            s=camrtp\r
            c=IN IP4 127.0.0.1\r
            t=0 0\r
            m=video 5004 RTP/AVP 96\r
            a=rtpmap:96 VP8/90000\r
            a=rtcp:5005\r
            a=framerate:30\r
            a=sendonly\r

            """)
    }

    @Test func srtpUsesSAVPAndCryptoLine() {
        let crypto = CryptoAttribute(suite: "AES_CM_128_HMAC_SHA1_80", key: testKey)
        let sdp = session(.ipv4("203.0.113.7"), video: PlainRTPVideo(port: 5006, rtcp: .port(5007), crypto: crypto))
        #expect(sdp.lines() == [
            "v=0",
            "o=- 4242 1 IN IP4 203.0.113.7",
            "s=camrtp",
            "c=IN IP4 203.0.113.7",
            "t=0 0",
            "m=video 5006 RTP/SAVP 96",
            "a=rtpmap:96 VP8/90000",
            "a=rtcp:5007",
            "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:4fl6DT4Bi+DWT6MsBt5BOQ7Gda1Jiv7rtpYLOqvm",
            "a=sendonly",
        ])
    }

    @Test func rtcpMuxOverIPv6() {
        let sdp = session(.ipv6("::1"), video: PlainRTPVideo(port: 6000, payloadType: 100, rtcp: .multiplexed))
        #expect(sdp.lines() == [
            "v=0",
            "o=- 4242 1 IN IP6 ::1",
            "s=camrtp",
            "c=IN IP6 ::1",
            "t=0 0",
            "m=video 6000 RTP/AVP 100",
            "a=rtpmap:100 VP8/90000",
            "a=rtcp-mux",
            "a=sendonly",
        ])
    }

    @Test func extensionsAndFixedSSRC() {
        let video = PlainRTPVideo(
            port: 5004,
            rtcp: .port(5005),
            extensions: [
                HeaderExtensionMapping(id: 3, uri: "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"),
                HeaderExtensionMapping(id: 4, uri: "urn:3gpp:video-orientation"),
            ],
            source: SourceDescription(ssrc: 0x1234_5678, cname: "camrtp@host"),
            frameRate: 25)
        #expect(Array(session(.ipv4("10.0.0.2"), video: video).lines().dropFirst(5)) == [
            "m=video 5004 RTP/AVP 96",
            "a=rtpmap:96 VP8/90000",
            "a=rtcp:5005",
            "a=extmap:3 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
            "a=extmap:4 urn:3gpp:video-orientation",
            "a=framerate:25",
            "a=ssrc:305419896 cname:camrtp@host",
            "a=sendonly",
        ])
    }

    /// RFC 4585 feedback makes the profile AVPF; RTX (RFC 4588) adds its payload type, `apt`,
    /// and with both SSRCs fixed the FID group.
    @Test func feedbackMakesAVPFAndRTXAddsItsFormatAndGroup() {
        let video = PlainRTPVideo(
            port: 5004,
            rtcp: .port(5005),
            feedback: [.nack, .pli, .fir, .transportCC, .remb],
            retransmission: RetransmissionFormat(payloadType: 97, ssrc: 0x9ABC_DEF0),
            extensions: [
                HeaderExtensionMapping(id: 2, uri: "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"),
                HeaderExtensionMapping(id: 3, uri: transportWideCC),
                HeaderExtensionMapping(id: 13, uri: "urn:3gpp:video-orientation"),
            ],
            source: SourceDescription(ssrc: 0x1234_5678, cname: "camrtp"),
            frameRate: 30)
        #expect(Array(session(.ipv4("10.0.0.2"), video: video).lines().dropFirst(5)) == [
            "m=video 5004 RTP/AVPF 96 97",
            "a=rtpmap:96 VP8/90000",
            "a=rtcp-fb:96 nack",
            "a=rtcp-fb:96 nack pli",
            "a=rtcp-fb:96 ccm fir",
            "a=rtcp-fb:96 transport-cc",
            "a=rtcp-fb:96 goog-remb",
            "a=rtpmap:97 rtx/90000",
            "a=fmtp:97 apt=96",
            "a=rtcp:5005",
            "a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
            "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
            "a=extmap:13 urn:3gpp:video-orientation",
            "a=framerate:30",
            "a=ssrc-group:FID 305419896 2596069104",
            "a=ssrc:305419896 cname:camrtp",
            "a=ssrc:2596069104 cname:camrtp",
            "a=sendonly",
        ])
    }

    @Test func feedbackWithSRTPIsSAVPFAndRTXWithoutSSRCsHasNoGroup() {
        let crypto = CryptoAttribute(suite: "AES_CM_128_HMAC_SHA1_80", key: testKey)
        let video = PlainRTPVideo(
            port: 5006, rtcp: .multiplexed, feedback: [.nack, .pli], retransmission: RetransmissionFormat(payloadType: 99),
            crypto: crypto)
        #expect(Array(session(.ipv4("10.0.0.2"), video: video).lines().dropFirst(5)) == [
            "m=video 5006 RTP/SAVPF 96 99",
            "a=rtpmap:96 VP8/90000",
            "a=rtcp-fb:96 nack",
            "a=rtcp-fb:96 nack pli",
            "a=rtpmap:99 rtx/90000",
            "a=fmtp:99 apt=96",
            "a=rtcp-mux",
            "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:4fl6DT4Bi+DWT6MsBt5BOQ7Gda1Jiv7rtpYLOqvm",
            "a=sendonly",
        ])
    }

    @Test func thePlainDescriptionReadsBackAsWritten() throws {
        let video = PlainRTPVideo(
            port: 5004, rtcp: .port(5005), feedback: [.nack, .pli], retransmission: RetransmissionFormat(ssrc: 7),
            extensions: [HeaderExtensionMapping(id: 13, uri: "urn:3gpp:video-orientation")],
            source: SourceDescription(ssrc: 6, cname: "camrtp"), frameRate: 30,
            crypto: CryptoAttribute(suite: "AES_CM_128_HMAC_SHA1_80", key: testKey))
        let sdp = session(.ipv4("10.0.0.2"), video: video)
        let parsed = try SessionDescription(parsing: sdp.serialized())
        #expect(parsed == sdp)
        #expect(parsed.serialized() == sdp.serialized())
    }

    @Test func everyLineEndsWithCRLFAndNothingElse() {
        let text = session(.ipv4("127.0.0.1"), video: PlainRTPVideo(port: 5004)).serialized()
        #expect(text.hasSuffix("\r\n"))
        #expect(text.split(separator: "\r\n").allSatisfy { !$0.contains("\n") && !$0.contains("\r") })
        #expect(text.split(separator: "\r\n").count == 8)
    }

    @Test func sameInputsGiveSameBytesAndTheSessionIDShows() {
        let video = PlainRTPVideo(port: 5004, source: SourceDescription(ssrc: 1, cname: "a"))
        #expect(session(.ipv4("127.0.0.1"), video: video).serialized()
            == session(.ipv4("127.0.0.1"), video: video).serialized())
        #expect(session(.ipv4("127.0.0.1"), sessionID: 7, video: video).lines()[1] == "o=- 7 1 IN IP4 127.0.0.1")
    }

    @Test func emptySessionNameBecomesDash() {
        var sdp = session(.ipv4("127.0.0.1"), video: PlainRTPVideo(port: 5004))
        sdp.sessionName = ""
        #expect(sdp.lines()[2] == "s=-")
    }

    @Test func lineBreaksInsideValuesCannotAddLines() {
        var sdp = session(.ipv4("127.0.0.1"), video: PlainRTPVideo(
            port: 5004, source: SourceDescription(ssrc: 9, cname: "cam\r\na=recvonly")))
        sdp.sessionName = "two\nlines"
        #expect(sdp.lines()[2] == "s=two lines")
        #expect(sdp.lines().contains("a=ssrc:9 cname:cam  a=recvonly"))
        #expect(sdp.serialized().components(separatedBy: "\r\n").count == sdp.lines().count + 1)
    }

    @Test func keyIsRedactedEverywhereButTheText() {
        let sdp = session(.ipv4("127.0.0.1"), video: PlainRTPVideo(
            port: 5006, crypto: CryptoAttribute(suite: "AES_CM_128_HMAC_SHA1_80", key: testKey)))
        var dumped = ""
        dump(sdp, to: &dumped)
        for rendering in [String(describing: sdp), String(reflecting: sdp), dumped, "\(testKey)"] {
            #expect(!rendering.contains("4fl6DT4B"), "key leaked: \(rendering)")
        }
        #expect(sdp.serialized().contains("inline:4fl6DT4Bi+DWT6MsBt5BOQ7Gda1Jiv7rtpYLOqvm"))
    }
}

@Suite("SDP read by ffmpeg")
struct SessionDescriptionFFmpegTests {
    /// ffmpeg opens the SRTP SDP, sets up its SRTP context from `a=crypto` (a bad one fails with
    /// "Incorrect amount of SRTP params") and lists the VP8 stream.
    @Test func ffmpegParsesTheSRTPDescription() throws {
        let port = UDPPorts.freePair()
        let log = try ffmpegLog(opening: PlainRTPVideo(
            port: port, rtcp: .port(port + 1),
            extensions: [HeaderExtensionMapping(id: 4, uri: "urn:3gpp:video-orientation")],
            source: SourceDescription(ssrc: 42, cname: "camrtp"), frameRate: 30,
            crypto: CryptoAttribute(suite: "AES_CM_128_HMAC_SHA1_80", key: testKey)))
        expectVP8Stream(in: log)
    }

    /// With feedback and RTX the profile is RTP/SAVPF, which turns on ffmpeg's NACK and PLI, and
    /// the RTX payload type sits beside VP8 in the `m=` line: ffmpeg still maps the stream to VP8.
    @Test func ffmpegParsesTheSAVPFDescriptionWithRTX() throws {
        let port = UDPPorts.freePair()
        let log = try ffmpegLog(opening: PlainRTPVideo(
            port: port, rtcp: .port(port + 1), feedback: [.nack, .pli, .fir],
            retransmission: RetransmissionFormat(payloadType: 97, ssrc: 43),
            extensions: [HeaderExtensionMapping(id: 3, uri: transportWideCC)],
            source: SourceDescription(ssrc: 42, cname: "camrtp"), frameRate: 30,
            crypto: CryptoAttribute(suite: "AES_CM_128_HMAC_SHA1_80", key: testKey)))
        expectVP8Stream(in: log)
    }

    private func ffmpegLog(opening video: PlainRTPVideo) throws -> String {
        try #require(ExternalTool.locate("ffmpeg") != nil, "ffmpeg is needed: apt-get install ffmpeg")
        let sdp = session(.ipv4("127.0.0.1"), video: video)
        let folder = TemporaryDirectory()
        let file = folder.file("stream.sdp")
        try sdp.serialized().write(toFile: file, atomically: true, encoding: .utf8)
        // With no packets, -listen_timeout makes ffmpeg list the stream and exit after 1 s.
        return try ExternalTool("ffmpeg").run([
            "-hide_banner", "-nostdin", "-loglevel", "verbose", "-listen_timeout", "1",
            "-protocol_whitelist", "file,udp,rtp,srtp", "-f", "sdp", "-i", file, "-frames:v", "1", "-f", "null", "-",
        ], timeout: TestPatience.seconds).stderr
    }

    private func expectVP8Stream(in log: String) {
        #expect(log.contains("Stream #0:0"), "ffmpeg did not open the stream:\n\(log)")
        #expect(log.contains("Video: vp8"), "ffmpeg did not map VP8:\n\(log)")
        for failure in ["SRTP params", "Invalid data", "Unable to", "unsupported", "Failed"] {
            #expect(!log.contains(failure), "ffmpeg reported '\(failure)':\n\(log)")
        }
    }
}
