/// Where encoded frames go: an RTP sender, an IVF file, a test.
///
/// The pipeline calls `attach` once before the first frame, then `consume` for every encoded
/// frame in order on its encoder thread, then `finish` once on the thread that stops it; never two
/// at once. A sink reports what it delivered through the `SinkReporter` rather than writing into
/// the pipeline's statistics, and a network sink steers the encoder through `EncoderControl`.
public protocol EncodedFrameSink: AnyObject, Sendable {
    func attach(encoder: any EncoderControl, reporter: SinkReporter)
    func consume(_ frame: EncodedFrame) throws
    func finish() throws
}

/// The encoder as a sink may steer it, from any thread: the RTP sender asks for keyframes when a
/// receiver lost one (PLI, FIR) and follows the congestion controller's target.
public protocol EncoderControl: AnyObject, Sendable {
    /// The next frame of every encoding will be a keyframe.
    func requestKeyframe()
    /// The next frame of encoding `encodingIndex` (`EncodedFrame.encodingIndex`, lowest first)
    /// will be a keyframe: a receiver lost that stream (PLI or FIR on its SSRC). An encoder that
    /// makes one encoding makes its next frame a keyframe; a simulcast encoder makes one in that
    /// encoding alone.
    func requestKeyframe(encodingIndex: Int)
    /// The encoder's target from the next frame on, in kbit/s.
    func setTargetBitrate(kbps: Int)
    /// While true the network is holding more than its congestion window, so frames are dropped
    /// before encoding (counted as `congestion`) instead of queueing behind the data in flight.
    func setNetworkCongested(_ congested: Bool)
    /// Only `encodings` (`EncodedFrame.encodingIndex`) are sent: the answer declined the others,
    /// so a simulcast encoder stops coding them until they are named again.
    func setActiveEncodings(_ encodings: Set<Int>)
    /// The rate in kbit/s the sender should fill with padding while its media is below it, to
    /// learn whether the path carries that much before it is sent (an SFU, before it moves a
    /// viewer up to a larger encoding); 0 for none. The sender reads it as it goes.
    var paddingProbeKbps: Int { get }
    /// The padding probe lost packets: the path does not carry its rate.
    func paddingProbeFailed()
}

extension EncoderControl {
    /// An encoder of one encoding sends it, whatever the answer said.
    public func setActiveEncodings(_ encodings: Set<Int>) {}
    /// An encoder asks for no probe of its own: the congestion controller probes.
    public var paddingProbeKbps: Int { 0 }
    public func paddingProbeFailed() {}
}

/// How a sink tells the pipeline what happened; cheap to copy, safe from any thread.
public struct SinkReporter: Sendable {
    private let handler: @Sendable (SinkEvent) -> Void

    public init(_ handler: @escaping @Sendable (SinkEvent) -> Void) {
        self.handler = handler
    }

    /// A reporter that drops everything, for sinks used on their own.
    public static let ignoring = SinkReporter { _ in }

    public func report(_ event: SinkEvent) {
        handler(event)
    }
}

/// What a sink reports.
public enum SinkEvent: Sendable {
    /// A frame's last packet left (or its bytes reached the file) at `deliveredNs`.
    case frameDelivered(timestampNs: Int64, packets: Int, bytes: Int, deliveredNs: Int64)
    /// Packets that carry no new media: RTCP, retransmissions, padding and probes.
    case overheadSent(packets: Int, bytes: Int)
    /// A receiver asked for a keyframe and the request was passed to the encoder.
    case keyframeRequested(KeyframeRequestSource)
    /// The sender's running figures (RTCP heard, retransmissions, RTT, target rate).
    case statistics(SenderStatistics)
}

/// Which feedback message asked for a keyframe.
public enum KeyframeRequestSource: String, Sendable, Codable, CaseIterable {
    /// RFC 4585 §6.3.1 Picture Loss Indication.
    case pli
    /// RFC 5104 §4.3.1 Full Intra Request.
    case fir
    /// An application or operator call (`EncoderControl.requestKeyframe`).
    case application
}
