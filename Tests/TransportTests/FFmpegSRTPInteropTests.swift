import Foundation
import RTP
import TestSupport
import Testing
import Transport

/// ffmpeg encodes VP8 over plain RTP to a relay socket; the relay protects each packet with
/// `SRTPSession` in a `RTPPacketBatch` and sends it with `UDPTransport` to a second ffmpeg that
/// decrypts and decodes from an SDP alone. Every wait is bounded.
@Suite("SRTP decoded by ffmpeg", .serialized)
struct FFmpegSRTPInteropTests {
    @Test(.timeLimit(.minutes(1)))
    func ffmpegDecryptsAndDecodesWhatWeProtect() throws {
        try #require(ExternalTool.locate("ffmpeg") != nil, "ffmpeg is needed: apt-get install ffmpeg")
        let framesWanted = 20
        let key = SRTPMasterKey(randomFor: .aesCM128HMACSHA1_80)
        let relayIn = try LoopbackSocket(ipv6: false)
        let receiverPort = UDPPorts.freePair()
        let folder = TemporaryDirectory()
        let sdpFile = folder.file("srtp.sdp")
        try [
            "v=0", "o=- 1 1 IN IP4 127.0.0.1", "s=camrtp", "c=IN IP4 127.0.0.1", "t=0 0",
            "m=video \(receiverPort) RTP/SAVP 96", "a=rtpmap:96 VP8/90000",
            "a=crypto:1 \(key.suite.sdpName) inline:\(key.base64EncodedKeyingMaterial())", "a=sendonly",
        ].map { $0 + "\r\n" }.joined().write(toFile: sdpFile, atomically: true, encoding: .utf8)

        let receiver = try ExternalTool("ffmpeg").start([
            "-hide_banner", "-nostdin", "-loglevel", "info", "-listen_timeout", "5",
            "-protocol_whitelist", "file,udp,rtp,srtp", "-i", sdpFile,
            "-frames:v", "\(framesWanted)", "-f", "framecrc", "-",
        ])
        let sender = try ExternalTool("ffmpeg").start([
            "-hide_banner", "-nostdin", "-loglevel", "error", "-re",
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "150",
            "-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "400k",
            "-g", "15", "-threads", "1", "-f", "rtp", "-payload_type", "96",
            "rtp://127.0.0.1:\(relayIn.endpoint.port)?pkt_size=1200",
        ])
        defer { _ = sender.wait(timeout: 0) }

        let session = try SRTPSession(key: key, direction: .outbound)
        let transport = try UDPTransport(remote: Endpoint(parsing: "127.0.0.1:\(receiverPort)"))
        let batch = RTPPacketBatch(slotCapacity: 1500, tailroom: session.rtpTrailerLength)
        let deadline = TestPatience.deadline
        while receiver.isRunning && Date() < deadline {
            guard relayIn.waitUntilReadable(timeoutMilliseconds: 100) else { continue }
            batch.removeAll()
            while (try? batch.append(relayIn.receive(into:))) != nil {}
            try session.protectRTP(in: batch)
            transport.send(batch)
        }
        let received = receiver.wait(timeout: 0)
        let crcLines = received.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }

        #expect(transport.statistics.packetsSent > 0)
        #expect(crcLines.count == framesWanted, "decoded \(crcLines.count) frames; ffmpeg said:\n\(received.stderr)")
        #expect(!received.stderr.contains("HMAC mismatch"), "ffmpeg rejected our SRTP:\n\(received.stderr)")
        #expect(received.stderr.contains("Video: vp8"))
    }
}
