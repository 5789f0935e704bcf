import Foundation
import Transport

/// Receivers we did not write, as the REFERENCES commands start them, writing Y4M.
public enum Receivers {
    /// ffmpeg reading the SDP; it ends at the sender's RTCP BYE, or once no packet has come for
    /// `silenceSeconds`. Its `-listen_timeout` counts from its start as well as from the last
    /// packet, so the default is `TestPatience`'s: a sender slow to start on a busy machine is
    /// still heard. A test whose BYE may not reach ffmpeg (lost on the way, or under a key ffmpeg
    /// lacks) gives a shorter silence.
    /// `inputOptions` go before `-i`, such as `-sdp_flags rtcp_to_source`.
    public static func ffmpeg(
        sdp: String, output: String, srtp: Bool = false, inputOptions: [String] = [], silenceSeconds: Int = Int(TestPatience.seconds)
    ) throws -> ExternalTool.Running {
        try ExternalTool("ffmpeg").start([
            "-nostdin", "-loglevel", "warning", "-threads", "1", "-listen_timeout", "\(silenceSeconds)", "-localaddr", "127.0.0.1",
            "-protocol_whitelist", srtp ? "file,udp,rtp,srtp" : "file,udp,rtp",
        ] + inputOptions + [
            "-i", sdp,
            "-fps_mode", "passthrough", "-f", "yuv4mpegpipe", "-y", output,
        ])
    }

    /// ffplay as REFERENCES starts it, headless (SDL's dummy video driver), logging every picture
    /// it decodes (`showinfo`) on stderr; stop it with SIGINT. With `-noframedrop`: without audio
    /// ffplay follows an external clock and by default drops a picture that is late for it before
    /// the filter, so a busy machine would lose pictures from the count.
    public static func ffplay(sdp: String) throws -> ExternalTool.Running {
        try ExternalTool("ffplay").start(
            [
                "-hide_banner", "-loglevel", "info", "-protocol_whitelist", "file,udp,rtp", "-fflags", "nobuffer", "-flags", "low_delay",
                "-nofind_stream_info", "-noframedrop", "-an", "-vf", "showinfo", sdp,
            ], environment: ["SDL_VIDEODRIVER": "dummy"])
    }

    /// The picture number in one of ffplay's `showinfo` lines ("... n:  59 pts: ..."), if it is one.
    public static func showinfoFrameNumber(_ line: Substring) -> Int? {
        guard line.contains("Parsed_showinfo"), let marker = line.range(of: " n:") else { return nil }
        return Int(line[marker.upperBound...].drop { $0 == " " }.prefix { $0.isNumber })
    }

    /// GStreamer's RTP jitter buffer, depayloader and VP8 decoder on plain UDP caps; stop it
    /// with SIGINT (`-e` flushes the file).
    public static func gstreamer(port: UInt16, output: String) throws -> ExternalTool.Running {
        try ExternalTool("gst-launch-1.0").start([
            "-e", "udpsrc", "address=127.0.0.1", "port=\(port)", "buffer-size=4194304",
            "caps=application/x-rtp,media=video,encoding-name=VP8,clock-rate=90000,payload=96",
            "!", "rtpjitterbuffer", "latency=200", "!", "rtpvp8depay", "!", "vp8dec", "threads=1",
            "!", "y4menc", "!", "filesink", "location=\(output)",
        ])
    }

    /// Waits until the receiver listens on `port` (at most 10 s).
    public static func waitUntilListening(_ receiver: ExternalTool.Running, port: UInt16) -> Bool {
        LocalUDPPort.waitUntilBound(port, timeoutSeconds: TestPatience.seconds) { receiver.isRunning }
    }
}

/// GStreamer's RTP session as a receiver that answers (REFERENCES, "Receivers that send
/// feedback"): receiver reports, NACKs for lost packets, PLI when the depayloader wants
/// a keyframe, and transport-wide feedback when `twccExtensionID` is set (GStreamer 1.22 then
/// reports every packet's arrival once per frame, as a lone RTPFB FMT 15 packet: reduced-size
/// RTCP, RFC 5506). It receives RTP on `rtpPort` and RTCP (the sender's reports) on
/// `rtpPort + 1`, and sends its RTCP to `feedbackPort` from an ephemeral port: the sender's RTCP
/// port, or a relay's inner port in front of it. Not from `rtpPort + 1` with `bind-port`: a
/// `udpsink` bound to the `udpsrc`'s port shares it, the kernel then gives the sender's reports to
/// the sink's socket, which never reads, and no RTT could be measured. camrtp takes feedback from
/// the receiver's host on any port.
///
/// Stop it with SIGINT (`interrupt()`); with `-e` it would wait for an end of stream forever.
public struct GStreamerRtpbin: Sendable {
    public enum Retransmission: Sendable, Equatable {
        /// No NACKs: lost packets stay lost.
        case off
        /// NACKs, the retransmission being the original packet sent again.
        case resend
        /// NACKs, the retransmission coming as RFC 4588 RTX with `payloadType`; the pipeline is
        /// built on `rtpsession` with `rtprtxreceive` and `rtpptdemux` (without which GStreamer
        /// never sends a PLI).
        case rtx(payloadType: Int)
    }

    public var rtpPort: UInt16
    public var feedbackPort: UInt16
    public var feedbackHost = "127.0.0.1"
    /// The decoded pictures, as Y4M, written unbuffered so that a test sees each one as it comes;
    /// nil: not decoded (runs about the feedback alone).
    public var output: String?
    public var payloadType = 96
    /// GStreamer also NACKs packets that are only late: behind a growing queue most of its NACKs
    /// are for packets already received.
    public var retransmission = Retransmission.resend
    /// The jitter buffer's latency: how long a lost packet may take to be repaired.
    public var latencyMs = 200
    /// The RTCP bandwidth in bit/s; at 250 kbit/s RTCP may go out early enough to NACK every loss.
    public var rtcpBandwidthBps = 250_000
    /// Ask for a keyframe (PLI) when the depayloader needs one.
    public var requestKeyframes = true
    /// The sender's transport-wide sequence number extension ID (camrtp: 3): GStreamer then sends
    /// transport-cc feedback (`extmap-N` in its caps).
    public var twccExtensionID: UInt8?

    public init(rtpPort: UInt16, feedbackPort: UInt16, output: String?) {
        self.rtpPort = rtpPort
        self.feedbackPort = feedbackPort
        self.output = output
    }

    public static let twccURI = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"

    /// The RTP caps: what the SDP would say, in GStreamer's words.
    public var caps: String {
        var caps = "application/x-rtp,media=(string)video,clock-rate=(int)90000,encoding-name=(string)VP8,payload=(int)\(payloadType)"
        if retransmission != .off || requestKeyframes { caps += ",rtcp-fb-nack-pli=(boolean)true" }
        if retransmission != .off { caps += ",rtcp-fb-nack=(boolean)true" }
        if let twccExtensionID { caps += ",extmap-\(twccExtensionID)=(string)\"\(Self.twccURI)\"" }
        return caps
    }

    /// The gst-launch-1.0 arguments.
    public var arguments: [String] {
        let rtcpPort = rtpPort + 1
        let feedback = ["udpsink", "host=\(feedbackHost)", "port=\(feedbackPort)", "sync=false", "async=false"]
        var decode = ["rtpvp8depay", "request-keyframe=\(requestKeyframes)", "wait-for-keyframe=true", "!"]
        if let output {
            decode += ["vp8dec", "threads=1", "!", "y4menc", "!", "filesink", "location=\(output)", "buffer-mode=unbuffered"]
        } else {
            decode += ["fakesink", "sync=false"]
        }
        let source = ["udpsrc", "address=127.0.0.1", "port=\(rtpPort)", "buffer-size=4194304", "caps=\(caps)"]
        let rtcpSource = ["udpsrc", "address=127.0.0.1", "port=\(rtcpPort)"]
        switch retransmission {
        case .off, .resend:
            return [
                "rtpbin", "name=rb", "latency=\(latencyMs)", "do-retransmission=\(retransmission == .resend)",
                "rtp-profile=avpf", "rtpsession0::bandwidth=\(rtcpBandwidthBps)",
            ] + source + ["!", "rb.recv_rtp_sink_0"] + rtcpSource + ["!", "rb.recv_rtcp_sink_0", "rb.send_rtcp_src_0", "!"]
                + feedback + ["rb.", "!"] + decode
        case .rtx(let rtxPayloadType):
            return [
                "rtpsession", "name=s", "rtp-profile=avpf", "bandwidth=\(rtcpBandwidthBps)",
            ] + source + ["!", "s.recv_rtp_sink"] + rtcpSource + ["!", "s.recv_rtcp_sink", "s.send_rtcp_src", "!"]
                + feedback + [
                    "s.recv_rtp_src", "!", "rtprtxreceive",
                    "payload-type-map=application/x-rtp-pt-map,\(payloadType)=(uint)\(rtxPayloadType)", "!", "rtpssrcdemux", "!",
                    "rtpjitterbuffer", "do-retransmission=true", "latency=\(latencyMs)", "!", "rtpptdemux", "!",
                ] + decode
        }
    }

    /// Starts the pipeline and returns once it plays: both ports bound and the pipeline's clock
    /// running ("New clock"), so that the first packet sent is read, not left in a socket
    /// buffer while a busy machine brings the pipeline up.
    public func start() throws -> ExternalTool.Running {
        let running = try ExternalTool("gst-launch-1.0").start(arguments)
        let listening = [rtpPort, rtpPort + 1].allSatisfy { port in UDPPorts.waitUntilBound(port) { running.isRunning } }
        guard listening, running.waitForLine(containing: "New clock", in: .stdout) != nil else {
            running.interrupt()
            let result = running.wait(timeout: 10)
            throw ExternalTool.SpawnError(message: "gst-launch-1.0 did not start playing (exit \(result.status)): \(result.stderr)")
        }
        return running
    }
}
