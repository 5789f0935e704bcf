import Foundation
import RTP
import Testing
import Transport

/// ffmpeg encodes VP8 over plain RTP to a relay socket; the relay protects each packet with
/// `SRTPSession` in a `RTPPacketBatch` and sends it with `UDPTransport` to a second ffmpeg that
/// decrypts and decodes from an SDP alone. Every wait is bounded.
@Suite("SRTP decoded by ffmpeg", .serialized)
struct FFmpegSRTPInteropTests {
    @Test(.timeLimit(.minutes(1)))
    func ffmpegDecryptsAndDecodesWhatWeProtect() throws {
        guard let ffmpeg = executable(named: "ffmpeg") else {
            print("SKIPPED ffmpegDecryptsAndDecodesWhatWeProtect: ffmpeg is not on PATH")
            return
        }
        let framesWanted = 20
        let key = SRTPMasterKey(randomFor: .aesCM128HMACSHA1_80)
        let relayIn = try LoopbackSocket(ipv6: false)
        // A random even port keeps parallel runs on one machine apart.
        let receiverPort = UInt16.random(in: 10_000...29_999) * 2
        let sdpFile = FileManager.default.temporaryDirectory
            .appendingPathComponent("camrtp-srtp-\(getpid())-\(receiverPort).sdp")
        try [
            "v=0", "o=- 1 1 IN IP4 127.0.0.1", "s=camrtp", "c=IN IP4 127.0.0.1", "t=0 0",
            "m=video \(receiverPort) RTP/SAVP 96", "a=rtpmap:96 VP8/90000",
            "a=crypto:1 \(key.suite.sdpName) inline:\(key.base64EncodedKeyingMaterial())", "a=sendonly",
        ].map { $0 + "\r\n" }.joined().write(to: sdpFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: sdpFile) }

        let receiver = Process()
        receiver.executableURL = ffmpeg
        receiver.arguments = ["-hide_banner", "-nostdin", "-loglevel", "info", "-listen_timeout", "5",
                              "-protocol_whitelist", "file,udp,rtp,srtp", "-i", sdpFile.path,
                              "-frames:v", "\(framesWanted)", "-f", "framecrc", "-"]
        let receiverOut = Pipe()
        let receiverErr = Pipe()
        receiver.standardOutput = receiverOut
        receiver.standardError = receiverErr
        try receiver.run()
        defer { stop(receiver) }

        let sender = Process()
        sender.executableURL = ffmpeg
        sender.arguments = ["-hide_banner", "-nostdin", "-loglevel", "error", "-re",
                            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "150",
                            "-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "400k",
                            "-g", "15", "-threads", "1", "-f", "rtp", "-payload_type", "96",
                            "rtp://127.0.0.1:\(relayIn.endpoint.port)?pkt_size=1200"]
        sender.standardOutput = FileHandle.nullDevice
        sender.standardError = FileHandle.nullDevice
        try sender.run()
        defer { stop(sender) }

        let session = try SRTPSession(key: key, direction: .outbound)
        let transport = try UDPTransport(remote: Endpoint(parsing: "127.0.0.1:\(receiverPort)"))
        let batch = RTPPacketBatch(slotCapacity: 1500, tailroom: session.rtpTrailerLength)
        let deadline = Date().addingTimeInterval(15)
        while receiver.isRunning && Date() < deadline {
            guard relayIn.waitUntilReadable(timeoutMilliseconds: 100) else { continue }
            batch.removeAll()
            while (try? batch.append(relayIn.receive(into:))) != nil {}
            try session.protectRTP(in: batch)
            transport.send(batch)
        }
        stop(receiver)
        let crcLines = String(decoding: receiverOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n").filter { !$0.hasPrefix("#") }
        let log = String(decoding: receiverErr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)

        #expect(transport.statistics.packetsSent > 0)
        #expect(crcLines.count == framesWanted, "decoded \(crcLines.count) frames; ffmpeg said:\n\(log)")
        #expect(!log.contains("HMAC mismatch"), "ffmpeg rejected our SRTP:\n\(log)")
        #expect(log.contains("Video: vp8"))
    }

    /// Test processes inherit a blocked SIGTERM, so a process still running is killed outright.
    private func stop(_ process: Process) {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    private func executable(named name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").lazy
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}
