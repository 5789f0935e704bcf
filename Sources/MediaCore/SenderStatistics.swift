/// What a network sender has heard and done, as `--stats-json` writes it. The sender keeps these
/// on its own thread and reports a copy through `SinkEvent.statistics`.
public struct SenderStatistics: Sendable, Codable, Equatable {
    /// RTCP packets received, by type; `rejected` counts datagrams and packets refused: from an
    /// address other than the receiver's, failing SRTCP authentication, malformed, over the rate
    /// limit, or about an SSRC that is not ours.
    public struct RTCPReceived: Sendable, Codable, Equatable {
        public var rr = 0
        public var sr = 0
        public var nack = 0
        public var pli = 0
        public var fir = 0
        public var remb = 0
        public var twcc = 0
        public var other = 0
        public var rejected = 0

        public init() {}
    }

    public struct RoundTripTime: Sendable, Codable, Equatable {
        public var last: Double
        public var p50: Double

        public init(last: Double, p50: Double) {
            self.last = last
            self.p50 = p50
        }
    }

    public struct TargetBitrate: Sendable, Codable, Equatable {
        public var start: Double
        public var min: Double
        public var max: Double
        public var last: Double

        public init(start: Double) {
            self.start = start
            min = start
            max = start
            last = start
        }

        public mutating func record(_ kbps: Double) {
            last = kbps
            min = Swift.min(min, kbps)
            max = Swift.max(max, kbps)
        }
    }

    public struct QueueTime: Sendable, Codable, Equatable {
        public var p99: Double
        public var max: Double

        public init(p99: Double, max: Double) {
            self.p99 = p99
            self.max = max
        }
    }

    public var rtcpReceived = RTCPReceived()
    /// Sequence numbers receivers asked for again (generic NACK, RFC 4585 §6.2.1).
    public var nackedPackets = 0
    /// Of those, the ones no longer in the packet history.
    public var nackedPacketsMissing = 0
    /// Packets sent again (resent as they were, or as RTX).
    public var packetsRetransmitted = 0
    public var bytesRetransmitted = 0
    /// Keyframe requests (PLI, FIR) passed on to the encoder, after throttling.
    public var keyframesOnRequest = 0
    /// From receiver reports (RFC 3550 §6.4.1 LSR/DLSR), in ms; nil until one arrives.
    public var rttMs: RoundTripTime?
    /// The fraction lost of the latest receiver report about our stream (0...1).
    public var receiverFractionLost: Double?
    /// The rate the sender aims at, in kbit/s: what congestion control allows.
    public var targetBitrateKbps: TargetBitrate
    /// How long packets waited in the pacer, in ms.
    public var pacerQueueMs = QueueTime(p99: 0, max: 0)
    /// Probe packets (padding or media sent at a probe cluster's rate).
    public var probesSent = 0
    /// Transport-wide congestion control feedback messages that matched our packets.
    public var twccFeedbackReceived = 0
    /// ULPFEC packets (RFC 5109) sent in RED, and their bytes on the wire.
    public var fecPacketsSent = 0
    public var fecBytesSent = 0
    /// FEC packets per media packet on delta frames, as last decided (0 without FEC).
    public var fecProtection = 0.0

    public init(startBitrateKbps: Double) {
        targetBitrateKbps = TargetBitrate(start: startBitrateKbps)
    }
}
