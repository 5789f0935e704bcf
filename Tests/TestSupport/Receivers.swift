import Foundation
import Transport

/// Receivers we did not write, as the REFERENCES commands start them, writing Y4M.
public enum Receivers {
    /// ffmpeg reading the SDP; it exits about 2 s after the last packet.
    public static func ffmpeg(sdp: String, output: String, srtp: Bool = false) throws -> ExternalTool.Running {
        try ExternalTool("ffmpeg").start([
            "-nostdin", "-loglevel", "warning", "-threads", "1", "-listen_timeout", "2", "-localaddr", "127.0.0.1",
            "-protocol_whitelist", srtp ? "file,udp,rtp,srtp" : "file,udp,rtp", "-i", sdp,
            "-fps_mode", "passthrough", "-f", "yuv4mpegpipe", "-y", output,
        ])
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
