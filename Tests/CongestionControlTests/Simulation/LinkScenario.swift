import CongestionControl

/// One simulated call: the path, the feedback the receiver sends and the sender's settings.
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
    var randomLossFraction = 0.0
    var feedback = Feedback.transportWide(intervalNs: 50_000_000)
    /// A REMB the receiver sends every second.
    var rembBps: Int64?
    var startBitrateBps: Int64 = 300_000
    var maxBitrateBps: Int64 = 10_000_000
    var keyframeIntervalNs: Int64?
    var isPacingEnabled = true
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
