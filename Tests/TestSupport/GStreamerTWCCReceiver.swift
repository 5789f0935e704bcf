/// GStreamer 1.22's `rtpbin` as a receiver that answers with transport-wide congestion control
/// feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01): the `extmap-N` field in its RTP
/// caps names the extension, and its RTP session then reports every packet's arrival, once per
/// frame (marker bit), as a lone RTPFB FMT 15 packet (reduced-size RTCP, RFC 5506). It also
/// sends receiver reports, PLI when the depayloader wants a keyframe and, with `sendsNACKs`,
/// generic NACKs. The pictures go to a `fakesink`: the feedback is what these runs are about.
///
/// It receives RTP on `rtpPort` and RTCP (the sender's reports) on `rtpPort + 1`, and sends its
/// RTCP to `feedbackHost:feedbackPort`, from an ephemeral port. Not from `rtpPort + 1` with
/// `bind-port`: a `udpsink` bound to the `udpsrc`'s port shares it, and the kernel then gives the
/// sender's SRs to the sink's socket, which never reads, so the RRs say LSR 0 and no RTT can be
/// measured. A relay in front of the sender does not care where feedback comes from; a sender
/// reached directly does.
///
/// Stop it with SIGINT (`interrupt()`).
public struct GStreamerTWCCReceiver: Sendable {
    public static let transportWideCCURI = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"

    public var rtpPort: UInt16
    public var feedbackPort: UInt16
    public var feedbackHost = "127.0.0.1"
    public var payloadType = 96
    /// The sender's transport-wide sequence number extension ID (camrtp: 3).
    public var extensionID: UInt8 = 3
    /// Generic NACKs for packets the jitter buffer misses. GStreamer also NACKs packets that are
    /// only late: behind a growing queue most of its NACKs are for packets already received.
    public var sendsNACKs = true
    public var latencyMs = 200
    /// RTCP bandwidth in bit/s: enough for NACKs to go out early (REFERENCES).
    public var rtcpBandwidthBps = 250_000

    public init(rtpPort: UInt16, feedbackPort: UInt16) {
        self.rtpPort = rtpPort
        self.feedbackPort = feedbackPort
    }

    /// The RTP caps: what an SDP with `a=extmap:N <TWCC URI>` and `a=rtcp-fb:96 nack pli` says.
    public var caps: String {
        var caps = "application/x-rtp,media=(string)video,clock-rate=(int)90000,encoding-name=(string)VP8"
        caps += ",payload=(int)\(payloadType),rtcp-fb-nack-pli=(boolean)true"
        if sendsNACKs { caps += ",rtcp-fb-nack=(boolean)true" }
        caps += ",extmap-\(extensionID)=(string)\"\(Self.transportWideCCURI)\""
        return caps
    }

    /// The `gst-launch-1.0` arguments.
    public var arguments: [String] {
        [
            "rtpbin", "name=rb", "latency=\(latencyMs)", "do-retransmission=\(sendsNACKs)", "rtp-profile=avpf",
            "rtpsession0::bandwidth=\(rtcpBandwidthBps)",
            "udpsrc", "address=127.0.0.1", "port=\(rtpPort)", "buffer-size=4194304", "caps=\(caps)", "!", "rb.recv_rtp_sink_0",
            "udpsrc", "address=127.0.0.1", "port=\(rtpPort + 1)", "!", "rb.recv_rtcp_sink_0",
            "rb.send_rtcp_src_0", "!", "udpsink", "host=\(feedbackHost)", "port=\(feedbackPort)", "sync=false", "async=false",
            "rb.", "!", "rtpvp8depay", "request-keyframe=true", "wait-for-keyframe=true", "!", "fakesink", "sync=false",
        ]
    }

    /// Starts the pipeline and waits until it listens on both ports (at most 20 s).
    public func start() throws -> ExternalTool.Running {
        let running = try ExternalTool("gst-launch-1.0").start(arguments)
        for port in [rtpPort, rtpPort + 1] where !UDPPorts.waitUntilBound(port, while: { running.isRunning }) {
            running.interrupt()
            let result = running.wait(timeout: 10)
            throw ExternalTool.SpawnError(message: "gst-launch-1.0 did not listen on port \(port) (exit \(result.status)): \(result.stderr)")
        }
        return running
    }
}
