/// How many viewers steer one encoder: the target follows the lowest viewer estimate (with
/// temporal layers, the highest), keyframe requests from any viewer are merged and rate-limited,
/// and the encoder holds frames back for congestion only while every viewer is congested. Pure:
/// the caller passes the clock in and applies the decisions to the encoder.
///
/// The lowest estimate is what an SFU's simulcast-less forwarding does too (Janus forwards the
/// lowest viewer REMB): one stream must fit the slowest path, or that viewer loses packets
/// continuously while the others gain little. With temporal layers each viewer takes the layers
/// its path carries (`TemporalLayerSelection`), so the target follows the best viewer, as far as
/// the slowest one still carries the base layer.
public struct ViewerSteering: Sendable {
    /// A keyframe costs several frames' worth of bits, so requests closer together than this are
    /// merged into one (libwebrtc: one keyframe per 300 ms).
    public var minimumKeyframeIntervalNs: Int64
    /// The encoder's range in kbit/s; viewer estimates are clamped into it.
    public var minBitrateKbps: Int
    public var maxBitrateKbps: Int
    /// The base temporal layer's share of the encoder's rate; 1 without layers.
    public var baseLayerShare: Double

    private var estimates: [Int: Int] = [:]
    private var congested: Set<Int> = []
    private var viewers: Set<Int> = []
    private var lastKeyframeNs: Int64?
    private var keyframePending = false
    private var appliedTargetKbps: Int?

    public init(
        minBitrateKbps: Int, maxBitrateKbps: Int, minimumKeyframeIntervalNs: Int64 = 300_000_000, baseLayerShare: Double = 1
    ) {
        self.minBitrateKbps = minBitrateKbps
        self.maxBitrateKbps = max(minBitrateKbps, maxBitrateKbps)
        self.minimumKeyframeIntervalNs = minimumKeyframeIntervalNs
        self.baseLayerShare = min(1, max(0.01, baseLayerShare))
    }

    /// What the encoder should be told now; nil fields mean "no change".
    public struct Decision: Sendable, Equatable {
        public var requestKeyframe = false
        public var targetBitrateKbps: Int?
        public var congested: Bool?

        public init(requestKeyframe: Bool = false, targetBitrateKbps: Int? = nil, congested: Bool? = nil) {
            self.requestKeyframe = requestKeyframe
            self.targetBitrateKbps = targetBitrateKbps
            self.congested = congested
        }
    }

    public var viewerCount: Int { viewers.count }

    /// The target the lowest viewer allows, or with temporal layers the highest viewer, capped
    /// where the lowest one's estimate would no longer carry the base layer; the maximum while no
    /// viewer has an estimate yet.
    public var targetBitrateKbps: Int {
        guard let lowest = estimates.values.min(), let highest = estimates.values.max() else { return maxBitrateKbps }
        let target = baseLayerShare < 1 ? min(highest, Int(Double(lowest) / baseLayerShare)) : lowest
        return min(maxBitrateKbps, max(minBitrateKbps, target))
    }

    /// A viewer's last estimate; nil before its first.
    public func estimate(of id: Int) -> Int? { estimates[id] }

    /// Whether the encoder should drop frames before encoding: with no viewer (nobody to send
    /// to, so the encoder idles) or while every viewer is congested.
    public var isCongested: Bool {
        viewers.isEmpty || viewers.isSubset(of: congested)
    }

    /// A viewer joined: it needs a keyframe to start decoding.
    public mutating func addViewer(_ id: Int, nowNs: Int64) -> Decision {
        let wasCongested = isCongested
        viewers.insert(id)
        var decision = keyframeRequested(nowNs: nowNs)
        decision.targetBitrateKbps = retarget()
        if isCongested != wasCongested { decision.congested = isCongested }
        return decision
    }

    public mutating func removeViewer(_ id: Int) -> Decision {
        let wasCongested = isCongested
        viewers.remove(id)
        estimates[id] = nil
        congested.remove(id)
        var decision = Decision(targetBitrateKbps: retarget())
        if isCongested != wasCongested { decision.congested = isCongested }
        return decision
    }

    /// A viewer's sender asked for a keyframe (its receiver's PLI or FIR, or its own start).
    public mutating func keyframeRequested(nowNs: Int64) -> Decision {
        if let last = lastKeyframeNs, nowNs - last < minimumKeyframeIntervalNs {
            keyframePending = true
            return Decision()
        }
        lastKeyframeNs = nowNs
        keyframePending = false
        return Decision(requestKeyframe: true)
    }

    /// A merged request whose interval has passed is let through; called for every frame.
    public mutating func poll(nowNs: Int64) -> Decision {
        guard keyframePending else { return Decision() }
        return keyframeRequested(nowNs: nowNs)
    }

    /// A viewer's congestion controller changed its estimate.
    public mutating func viewerEstimate(_ id: Int, kbps: Int) -> Decision {
        guard viewers.contains(id) else { return Decision() }
        estimates[id] = kbps
        return Decision(targetBitrateKbps: retarget())
    }

    public mutating func viewerCongested(_ id: Int, _ isViewerCongested: Bool) -> Decision {
        guard viewers.contains(id) else { return Decision() }
        let was = isCongested
        if isViewerCongested { congested.insert(id) } else { congested.remove(id) }
        return isCongested == was ? Decision() : Decision(congested: isCongested)
    }

    /// The new target when it differs from the one last applied.
    private mutating func retarget() -> Int? {
        guard !viewers.isEmpty else { return nil }
        let target = targetBitrateKbps
        guard target != appliedTargetKbps else { return nil }
        appliedTargetKbps = target
        return target
    }
}
