import RTPSession

/// One simulated call: the path, what the receiver sends back, and the sender's settings.
struct LinkScenario {
    enum Feedback {
        /// Transport-wide feedback every `intervalNs`, plus receiver reports every second.
        case transportWide(intervalNs: Int64)
        /// Receiver reports (loss, RTT) every second and nothing else.
        case receiverReportsOnly
    }

    /// The bottleneck's capacity from each time on (seconds, kbit/s).
    var capacity: [(atSeconds: Double, kbps: Int64)]
    var durationSeconds: Double
    var propagationDelayNs: Int64 = 25_000_000
    var queueLimitNs: Int64 = 300_000_000
    /// Media packets lost at random on the way in (feedback and reports are not).
    var randomLossFraction = 0.0
    /// The link loses every packet from the first time to the second (seconds).
    var outage: (fromSeconds: Double, toSeconds: Double)?
    var feedback = Feedback.transportWide(intervalNs: 50_000_000)
    /// A REMB the receiver sends every second.
    var rembBps: Int64?
    var startBitrateBps: Int64 = 300_000
    var maxBitrateBps: Int64 = 10_000_000
    var keyframeIntervalNs: Int64?
    var isPacingEnabled = true
    /// How the sender repairs what the receiver NACKs (`off` also stops the receiver NACKing);
    /// padding and probes copy media as RTX too, as a WebRTC sender's do.
    var retransmission = Retransmission.rtx
    /// RED + ULPFEC beside NACK; the receiver rebuilds what FEC can.
    var fec = FECMode.off
    /// The receiver's jitter buffer: a frame not complete this long after its place in the
    /// stream's timeline is lost (GStreamer's `latency`).
    var jitterBufferNs: Int64 = 200_000_000
    /// How long the receiver waits for a repair before it asks again (GStreamer's
    /// `rtx-retry-timeout`); nil: the round trip of repairs as measured, as its auto mode does.
    var nackRetryIntervalNs: Int64?
    /// The receiver sends a PLI this often, whatever it receives.
    var pliFloodIntervalNs: Int64?
    /// The receiver sends no RTCP at all from the first time to the second (seconds).
    var silence: (fromSeconds: Double, toSeconds: Double)?
    var seed: UInt64 = 1

    init(capacity: [(atSeconds: Double, kbps: Int64)], durationSeconds: Double) {
        self.capacity = capacity
        self.durationSeconds = durationSeconds
    }

    /// A link of one fixed capacity.
    init(kbps: Int64, durationSeconds: Double) {
        self.init(capacity: [(0, kbps)], durationSeconds: durationSeconds)
    }
}
