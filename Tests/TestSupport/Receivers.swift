import Foundation
import Transport

/// Receivers we did not write, as the REFERENCES commands start them, writing Y4M.
public enum Receivers {
    /// ffmpeg reading the SDP; it exits about 2 s after the last packet. `inputOptions` go
    /// before `-i`, such as `-sdp_flags rtcp_to_source`.
    public static func ffmpeg(sdp: String, output: String, srtp: Bool = false, inputOptions: [String] = []) throws -> ExternalTool.Running {
        try ExternalTool("ffmpeg").start([
            "-nostdin", "-loglevel", "warning", "-threads", "1", "-listen_timeout", "2", "-localaddr", "127.0.0.1",
            "-protocol_whitelist", srtp ? "file,udp,rtp,srtp" : "file,udp,rtp",
        ] + inputOptions + [
            "-i", sdp,
            "-fps_mode", "passthrough", "-f", "yuv4mpegpipe", "-y", output,
        ])
    }

    /// ffplay as REFERENCES starts it, headless (SDL's dummy video driver), logging every picture
    /// it decodes (`showinfo`) on stderr; stop it with SIGINT. Without `-framedrop`: that drops
    /// late pictures before the filter, which would make the count depend on the machine.
    public static func ffplay(sdp: String) throws -> ExternalTool.Running {
        try ExternalTool("ffplay").start(
            [
                "-hide_banner", "-loglevel", "info", "-protocol_whitelist", "file,udp,rtp", "-fflags", "nobuffer", "-flags", "low_delay",
                "-nofind_stream_info", "-an", "-vf", "showinfo", sdp,
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
        LocalUDPPort.waitUntilBound(port, timeoutSeconds: 10) { receiver.isRunning }
    }
}

/// GStreamer's RTP session as a receiver that answers (REFERENCES, "Receivers that send
/// feedback"): receiver reports, NACKs for lost packets, PLI when the depayloader wants
/// a keyframe, and transport-wide feedback when `twccExtensionID` is set. It receives RTP on
/// `rtpPort` and RTCP on `rtpPort + 1`, and sends its RTCP to `feedbackPort`: the sender's RTCP
/// port, or a relay's inner port in front of it.
///
/// A sender that reads feedback only from the receiver's address (camrtp) needs the RTCP to come
/// from `rtpPort + 1`, which `bindsFeedbackPort` does (`bind-port`). The price: the udpsink's
/// socket, bound to the same port, takes the datagrams sent there, so GStreamer never reads the
/// sender's reports, its receiver reports carry no LSR and the sender gets no RTT. Behind a
/// relay, which forwards feedback from any port, leave it off.
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
    /// Send RTCP from `rtpPort + 1` (see above).
    public var bindsFeedbackPort = true
    /// The decoded pictures, as Y4M, written unbuffered so that a test sees each one as it comes.
    public var output: String
    public var payloadType = 96
    public var retransmission = Retransmission.resend
    /// The jitter buffer's latency: how long a lost packet may take to be repaired.
    public var latencyMs = 200
    /// The RTCP bandwidth in bit/s; at 250 kbit/s RTCP may go out early enough to NACK every loss.
    public var rtcpBandwidthBps = 250_000
    /// Ask for a keyframe (PLI) when the depayloader needs one.
    public var requestKeyframes = true
    /// The sender's transport-wide sequence number extension ID: GStreamer then sends
    /// transport-cc feedback (`extmap-N` in its caps).
    public var twccExtensionID: UInt8?

    public init(rtpPort: UInt16, feedbackPort: UInt16, output: String) {
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
        let feedback = ["udpsink", "host=\(feedbackHost)", "port=\(feedbackPort)"]
            + (bindsFeedbackPort ? ["bind-port=\(rtcpPort)"] : []) + ["sync=false", "async=false"]
        let decode = [
            "rtpvp8depay", "request-keyframe=\(requestKeyframes)", "wait-for-keyframe=true", "!", "vp8dec", "threads=1",
            "!", "y4menc", "!", "filesink", "location=\(output)", "buffer-mode=unbuffered",
        ]
        let source = ["udpsrc", "port=\(rtpPort)", "buffer-size=4194304", "caps=\(caps)"]
        switch retransmission {
        case .off, .resend:
            return [
                "rtpbin", "name=rb", "latency=\(latencyMs)", "do-retransmission=\(retransmission == .resend)",
                "rtp-profile=avpf", "rtpsession0::bandwidth=\(rtcpBandwidthBps)",
            ] + source + ["!", "rb.recv_rtp_sink_0", "udpsrc", "port=\(rtcpPort)", "!", "rb.recv_rtcp_sink_0", "rb.send_rtcp_src_0", "!"]
                + feedback + ["rb.", "!"] + decode
        case .rtx(let rtxPayloadType):
            return [
                "rtpsession", "name=s", "rtp-profile=avpf", "bandwidth=\(rtcpBandwidthBps)",
            ] + source + ["!", "s.recv_rtp_sink", "udpsrc", "port=\(rtcpPort)", "!", "s.recv_rtcp_sink", "s.send_rtcp_src", "!"]
                + feedback + [
                    "s.recv_rtp_src", "!", "rtprtxreceive",
                    "payload-type-map=application/x-rtp-pt-map,\(payloadType)=(uint)\(rtxPayloadType)", "!", "rtpssrcdemux", "!",
                    "rtpjitterbuffer", "do-retransmission=true", "latency=\(latencyMs)", "!", "rtpptdemux", "!",
                ] + decode
        }
    }

    /// Starts the pipeline; wait for `Receivers.waitUntilListening(_:port:)` on `rtpPort` before sending.
    public func start() throws -> ExternalTool.Running {
        try ExternalTool("gst-launch-1.0").start(arguments)
    }
}
