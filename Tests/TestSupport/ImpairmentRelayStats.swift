/// What the impairment relay writes to `--stats-json` when it stops (keys in snake_case).
public struct ImpairmentRelayStats: Codable, Sendable {
    /// Packets or bytes by fate: everything that arrived (`in`) either left (`out`) or was dropped
    /// for exactly one reason.
    public struct Counts: Codable, Sendable, Equatable {
        public let `in`: Int
        public let out: Int
        public let droppedLoss: Int
        public let droppedQueue: Int
        /// Feedback that arrived before the sender had sent anything on its lane.
        public let droppedNoPeer: Int
        public let droppedSendError: Int
        /// Still in the queue or the delay line when the relay stopped.
        public let unsentAtExit: Int

        public var dropped: Int { droppedLoss + droppedQueue + droppedNoPeer + droppedSendError + unsentAtExit }
    }

    /// Nearest-rank percentiles in milliseconds.
    public struct Percentiles: Codable, Sendable {
        public let p50: Double
        public let p95: Double
        public let p99: Double
        public let max: Double
    }

    /// One second of a direction, counted from the first packet the relay saw.
    public struct Bin: Codable, Sendable {
        public let startS: Int
        /// The configured bottleneck rate at the start of the second; nil when unlimited.
        public let rateKbps: Double?
        public let throughputKbps: Double
        public let queueDelayP95Ms: Double?
        public let dropped: Int
    }

    public struct Direction: Codable, Sendable {
        public let packets: Counts
        public let bytes: Counts
        /// Time in the bottleneck queue (own transmission included, fixed delay excluded); nil without packets.
        public let queueDelayMs: Percentiles?
        /// How late the relay sent packets against their schedule: its own accuracy.
        public let departureLatenessMs: Percentiles?
        public let throughputOutKbps: Double
        public let bins: [Bin]
    }

    public let runS: Double
    public let seed: Int
    public let lanes: [ImpairmentRelay.BoundLane]
    /// Sender to receiver.
    public let forward: Direction
    /// Receiver to sender: the feedback.
    public let reverse: Direction
}
