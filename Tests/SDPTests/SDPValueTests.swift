import SDP
import Testing

/// Attribute values on their own: candidates (RFC 8839), fingerprints (RFC 8122), feedback
/// (RFC 4585), extmaps (RFC 8285), crypto (RFC 4568).
@Suite("SDP attribute values")
struct SDPValueTests {
    @Test func candidateWithRelatedAddressAndExtensionsReadsAndWritesBack() throws {
        let text = "candidate:842163049 1 udp 1677729535 203.0.113.7 61234 typ srflx raddr 192.0.2.2 rport 51234 generation 0 ufrag Ov/F network-cost 999"
        let candidate = try Candidate(sdpValue: text)
        #expect(candidate == Candidate(
            foundation: "842163049", priority: 1_677_729_535, address: "203.0.113.7", port: 61234, type: .serverReflexive,
            relatedAddress: "192.0.2.2", relatedPort: 51234,
            extensions: [
                CandidateExtension(name: "generation", value: "0"), CandidateExtension(name: "ufrag", value: "Ov/F"),
                CandidateExtension(name: "network-cost", value: "999"),
            ]))
        #expect(candidate.description == text)
        #expect(candidate.extensionValue("ufrag") == "Ov/F")
        #expect(try Candidate(sdpValue: text.dropFirst("candidate:".count)) == candidate)
    }

    @Test func tcpRelayAndMDNSCandidates() throws {
        let tcp = try Candidate(sdpValue: "2 1 TCP 1015022079 192.0.2.2 9 typ host tcptype active")
        #expect(tcp.transport == "TCP" && !tcp.isUDP && tcp.extensionValue("tcptype") == "active")
        let relay = try Candidate(sdpValue: "3 1 udp 41885439 198.51.100.1 3478 typ relay raddr 0.0.0.0 rport 0")
        #expect(relay.type == .relay && relay.relatedPort == 0)
        let mdns = try Candidate(sdpValue: "4 1 udp 2113937151 3b2c6a5e-8f0e-4d2b-9a1f-2f1c0e6d7a88.local 54321 typ host")
        #expect(mdns.address.hasSuffix(".local"))
        #expect(try Candidate(sdpValue: "5 1 udp 1 192.0.2.2 9 typ future").type == .other("future"))
    }

    @Test func aLateRaddrIsAnExtensionSoTheOrderSurvives() throws {
        let text = "1 1 udp 1 192.0.2.2 9 typ host generation 0 raddr 192.0.2.3"
        let candidate = try Candidate(sdpValue: text)
        #expect(candidate.relatedAddress == nil)
        #expect(candidate.sdpValue == text)
    }

    @Test func fingerprintInUpperCaseWhateverCameIn() throws {
        let digest = (0..<32).map { UInt8($0 * 7 & 0xFF) }
        let fingerprint = Fingerprint(hashFunction: .sha256, digest: digest)
        #expect(fingerprint.sdpValue.hasPrefix("sha-256 00:07:0E:15:1C:23:"))
        #expect(try Fingerprint(sdpValue: fingerprint.sdpValue) == fingerprint)
        #expect(try Fingerprint(sdpValue: "SHA-256 " + fingerprint.sdpValue.dropFirst(8).lowercased()) == fingerprint)
        let sha1 = try Fingerprint(sdpValue: "sha-1 " + Array(repeating: "AB", count: 20).joined(separator: ":"))
        #expect(sha1.hashFunction == .sha1 && sha1.digest.count == 20)
    }

    @Test func feedbackValuesAreTyped() {
        #expect(RTCPFeedback(sdpValue: "nack") == .nack)
        #expect(RTCPFeedback(sdpValue: "nack  pli") == .pli)
        #expect(RTCPFeedback(sdpValue: "ccm fir") == .fir)
        #expect(RTCPFeedback(sdpValue: "transport-cc") == .transportCC)
        #expect(RTCPFeedback(sdpValue: "goog-remb") == .remb)
        #expect(RTCPFeedback(sdpValue: "ccm  tmmbr") == .other("ccm tmmbr"))
        #expect(RTCPFeedback(sdpValue: "trr-int 100").sdpValue == "trr-int 100")
    }

    @Test func wildcardFeedbackAppliesToEveryPayloadType() throws {
        let sdp = try SessionDescription(parsing: """
            v=0
            o=- 1 1 IN IP4 192.0.2.1
            s=-
            t=0 0
            m=video 9 UDP/TLS/RTP/SAVPF 96 97
            a=rtpmap:96 VP8/90000
            a=rtpmap:97 rtx/90000
            a=fmtp:97 apt=96
            a=rtcp-fb:* nack
            a=rtcp-fb:* ccm fir
            a=rtcp-fb:96 nack pli
            a=rtcp-fb:100 goog-remb
            a=rtpmap:abc x/1
            """)
        let video = try #require(sdp.media.first)
        #expect(video.wildcardFeedback == [.nack, .fir])
        #expect(video.feedback(for: 96) == [.nack, .fir, .pli])
        #expect(video.feedback(for: 97) == [.nack, .fir])
        // Lines for payload types the m= line does not list are kept as they are.
        #expect(video.otherAttributes == [Attribute(name: "rtcp-fb", value: "100 goog-remb"), Attribute(name: "rtpmap", value: "abc x/1")])
        #expect(sdp.lines().contains("a=rtcp-fb:* ccm fir"))
    }

    @Test func extmapWithDirectionAndAttributes() throws {
        let sdp = try SessionDescription(parsing: """
            v=0
            o=- 1 1 IN IP4 192.0.2.1
            s=-
            t=0 0
            a=extmap:5 urn:ietf:params:rtp-hdrext:sdes:mid
            m=video 9 RTP/AVPF 96
            a=extmap:1/sendonly urn:3gpp:video-orientation
            a=extmap:14/recvonly urn:ietf:params:rtp-hdrext:encrypt http://example.com/082005/ext.htm#ttime
            """)
        #expect(sdp.extensions == [HeaderExtensionMapping(id: 5, uri: "urn:ietf:params:rtp-hdrext:sdes:mid")])
        let video = try #require(sdp.media.first)
        #expect(video.extensions == [
            HeaderExtensionMapping(id: 1, uri: "urn:3gpp:video-orientation", direction: .sendonly),
            HeaderExtensionMapping(
                id: 14, uri: "urn:ietf:params:rtp-hdrext:encrypt", direction: .recvonly,
                attributes: "http://example.com/082005/ext.htm#ttime"),
        ])
        #expect(sdp.lines().suffix(2) == [
            "a=extmap:1/sendonly urn:3gpp:video-orientation",
            "a=extmap:14/recvonly urn:ietf:params:rtp-hdrext:encrypt http://example.com/082005/ext.htm#ttime",
        ])
        #expect(sdp.extensions(for: video) == video.extensions)
    }

    @Test func cryptoWithLifetimeMKIAndSessionParameters() throws {
        let sdp = try SessionDescription(parsing: """
            v=0
            o=- 1 1 IN IP4 192.0.2.1
            s=-
            t=0 0
            m=video 5004 RTP/SAVP 96
            a=crypto:2 AES_CM_128_HMAC_SHA1_32 inline:4fl6DT4Bi+DWT6MsBt5BOQ7Gda1Jiv7rtpYLOqvm|2^20|1:4 UNENCRYPTED_SRTCP
            """)
        let crypto = try #require(sdp.media.first?.crypto.first)
        #expect(crypto.tag == 2 && crypto.suite == "AES_CM_128_HMAC_SHA1_32")
        #expect(crypto.key.lifetime == "2^20" && crypto.key.mki == "1:4")
        #expect(crypto.sessionParameters == ["UNENCRYPTED_SRTCP"])
        #expect(sdp.lines().last == "a=crypto:2 AES_CM_128_HMAC_SHA1_32 inline:4fl6DT4Bi+DWT6MsBt5BOQ7Gda1Jiv7rtpYLOqvm|2^20|1:4 UNENCRYPTED_SRTCP")
        #expect(!String(describing: crypto).contains("4fl6DT4B"))
    }

    @Test func sessionLevelFieldsKeepTheirPlaces() throws {
        let text = [
            "v=0", "o=jdoe 2890844526 2890842807 IN IP4 10.47.16.5", "s=SDP Seminar", "i=A Seminar on the session description protocol",
            "u=http://www.example.com/seminars/sdp.pdf", "e=j.doe@example.com (Jane Doe)", "c=IN IP4 224.2.17.12/127",
            "b=AS:2000", "b=TIAS:1900000", "b=X-YZ:12", "t=2873397496 2873404696", "r=7d 1h 0 25h", "a=recvonly",
            "m=audio 49170 RTP/AVP 0", "i=the talk", "b=AS:64", "k=prompt", "m=video 51372/2 RTP/AVP 99", "a=rtpmap:99 h263-1998/90000",
            "a=framerate:29.97", "",
        ].joined(separator: "\r\n")
        let sdp = try SessionDescription(parsing: text)
        #expect(sdp.serialized() == text)
        #expect(sdp.bandwidths == [.applicationSpecific(kbps: 2000), .transportIndependent(bps: 1_900_000), .other(modifier: "X-YZ", value: 12)])
        #expect(sdp.connection == .ipv4("224.2.17.12/127"))
        #expect(sdp.timing == [Timing(startTime: 2_873_397_496, stopTime: 2_873_404_696)])
        #expect(sdp.media.last?.portCount == 2)
        #expect(sdp.media.last?.frameRate == 29.97)
        #expect(sdp.direction(for: sdp.media[0]) == .recvonly)
    }

    @Test func directionRulesOfOfferAndAnswer() {
        #expect(MediaDirection.recvonly.answer(wanting: .sendonly) == .sendonly)
        #expect(MediaDirection.sendrecv.answer(wanting: .sendonly) == .sendonly)
        #expect(MediaDirection.sendonly.answer(wanting: .sendonly) == .inactive)
        #expect(MediaDirection.sendonly.permits(answer: .recvonly))
        #expect(!MediaDirection.sendonly.permits(answer: .sendrecv))
        #expect(MediaDirection.allCases.allSatisfy { $0.reversed.reversed == $0 })
    }
}
