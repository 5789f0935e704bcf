import Foundation

/// GStreamer receiving VP8 in RED with ULPFEC (`Tests/Tools/gst_fec_receiver.py`), wired as its
/// own WebRTC receiver wires it: `rtpreddec` (after `rtprtxreceive` with RTX) in rtpbin's aux
/// receiver, `rtpulpfecdec` with the session's storage from `request-fec-decoder`, NACK when
/// asked for. It receives RTP on `rtpPort`, the sender's reports on `rtpPort + 1`, and sends its
/// RTCP to `feedbackPort`. Stop it with SIGINT (`interrupt()`); its last line has the figures.
public struct GStreamerFECReceiver: Sendable {
    public var rtpPort: UInt16
    public var feedbackPort: UInt16
    public var redPayloadType: Int
    public var ulpfecPayloadType: Int
    /// RTX's payload type, for a sender that repairs on RTX; nil: repairs come as the packet again.
    public var rtxPayloadType: Int?
    /// NACK lost packets before giving them to the FEC decoder.
    public var nack = false
    public var latencyMs = 200
    /// After a loss FEC did not rebuild, decode nothing until a keyframe, so every frame decoded
    /// is whole (a lost FEC packet counts as such a loss too).
    public var waitForKeyframe = false
    /// The decoded pictures, as Y4M, written as they come; nil: not kept.
    public var output: String?

    public init(rtpPort: UInt16, feedbackPort: UInt16, redPayloadType: Int, ulpfecPayloadType: Int, output: String?) {
        self.rtpPort = rtpPort
        self.feedbackPort = feedbackPort
        self.redPayloadType = redPayloadType
        self.ulpfecPayloadType = ulpfecPayloadType
        self.output = output
    }

    /// What the receiver counted: rtpulpfecdec's packets rebuilt and given up, RED packets
    /// unwrapped, RTX packets, frames out of the decoder.
    public struct Figures: Decodable, Sendable {
        public let framesDecoded: Int
        public let fecRecovered: Int
        public let fecUnrecovered: Int
        public let redPackets: Int
        public let rtxPackets: Int
    }

    public var arguments: [String] {
        var arguments = [
            "-u", TestTools.path("gst_fec_receiver.py"), "--port", "\(rtpPort)", "--feedback-port", "\(feedbackPort)",
            "--red-payload-type", "\(redPayloadType)", "--ulpfec-payload-type", "\(ulpfecPayloadType)", "--latency", "\(latencyMs)",
        ]
        if let rtxPayloadType { arguments += ["--rtx-payload-type", "\(rtxPayloadType)"] }
        if nack { arguments.append("--nack") }
        if waitForKeyframe { arguments.append("--wait-for-keyframe") }
        if let output { arguments += ["--output", output] }
        return arguments
    }

    /// Why it cannot run here (PyGObject and GStreamer's introspection data), or nil.
    public static var unavailableReason: String? {
        let probe = try? ExternalTool("/usr/bin/python3").run(
            ["-c", "import gi; gi.require_version('Gst', '1.0'); from gi.repository import Gst"], timeout: TestPatience.seconds)
        return probe?.status == 0 ? nil : "needs python3-gi, gir1.2-gstreamer-1.0 and gir1.2-gst-plugins-base-1.0"
    }

    /// Starts the receiver and returns once its pipeline plays, so that the first packet sent is read.
    public func start() throws -> ExternalTool.Running {
        let running = try ExternalTool("/usr/bin/python3").start(arguments)
        guard running.waitForLine(containing: "\"playing\"", in: .stdout) != nil else {
            running.interrupt()
            let result = running.wait(timeout: 10)
            throw ExternalTool.SpawnError(message: "the GStreamer FEC receiver did not start (exit \(result.status)): \(result.stdout) \(result.stderr)")
        }
        return running
    }

    /// The figures of the receiver's last line, written when it was stopped.
    public static func finalFigures(_ result: ExternalTool.Result) throws -> Figures {
        guard let line = result.stdout.split(separator: "\n").last(where: { $0.contains("\"event\": \"final\"") }) else {
            throw ExternalTool.SpawnError(message: "the GStreamer FEC receiver wrote no figures: \(result.stdout) \(result.stderr)")
        }
        return try JSONDecoder().decode(Figures.self, from: Data(line.utf8))
    }
}
