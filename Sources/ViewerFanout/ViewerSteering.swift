/// How many viewers steer one encoder: the target follows the lowest viewer estimate (with
/// temporal layers or simulcast, the highest), keyframe requests from any viewer are merged and
/// rate-limited per encoding, and the encoder holds frames back for congestion only while every
/// viewer is congested. Pure: the caller passes the clock in and applies the decisions to the
/// encoder.
///
/// The lowest estimate is what an SFU's simulcast-less forwarding does too (Janus forwards the
/// lowest viewer REMB): one stream must fit the slowest path, or that viewer loses packets
/// continuously while the others gain little. With temporal layers each viewer takes the layers
/// its path carries (`TemporalLayerSelection`), so the target follows the best viewer, as far as
/// the slowest one still carries the base layer. With simulcast each viewer takes the encoding
/// its path carries (`SimulcastSelection`), so the target is what gives the best viewer's
/// encoding its whole estimate: that estimate plus what the lower encodings take.
public struct ViewerSteering: Sendable {
    /// How the encoder shares a total among its simulcast encodings (kbit/s, lowest first, 0
    /// for a paused one), as its rate allocation does.
    public typealias EncodingAllocation = @Sendable (_ totalKbps: Int) -> [Int]

    /// A keyframe costs several frames' worth of bits, so requests closer together than this are
    /// merged into one (libwebrtc: one keyframe per 300 ms).
    public var minimumKeyframeIntervalNs: Int64
    /// The encoder's range in kbit/s; viewer estimates are clamped into it.
    public var minBitrateKbps: Int
    public var maxBitrateKbps: Int
    /// The base temporal layer's share of the encoder's rate; 1 without layers.
    public var baseLayerShare: Double
    /// The encoder's simulcast allocation; nil with one encoding.
    public let encodingAllocation: EncodingAllocation?

    private var estimates: [Int: Int] = [:]
    private var congested: Set<Int> = []
    private var viewers: Set<Int> = []
    /// Per encoding: when its last keyframe was asked for, and which wait for the interval to pass.
    private var lastKeyframeNs: [Int: Int64] = [:]
    private var keyframesPending: Set<Int> = []
    private var appliedTargetKbps: Int?

    public init(
        minBitrateKbps: Int, maxBitrateKbps: Int, minimumKeyframeIntervalNs: Int64 = 300_000_000, baseLayerShare: Double = 1,
        encodingAllocation: EncodingAllocation? = nil
    ) {
        self.encodingAllocation = encodingAllocation
        self.minBitrateKbps = minBitrateKbps
        self.maxBitrateKbps = max(minBitrateKbps, maxBitrateKbps)
        self.minimumKeyframeIntervalNs = minimumKeyframeIntervalNs
        self.baseLayerShare = min(1, max(0.01, baseLayerShare))
    }

    /// What the encoder should be told now; nil fields mean "no change".
    public struct Decision: Sendable, Equatable {
        /// The encodings to ask for a keyframe, lowest first (`[0]` with one encoding).
        public var keyframes: [Int] = []
        public var targetBitrateKbps: Int?
        public var congested: Bool?

        public init(keyframes: [Int] = [], targetBitrateKbps: Int? = nil, congested: Bool? = nil) {
            self.keyframes = keyframes
            self.targetBitrateKbps = targetBitrateKbps
            self.congested = congested
        }

        public var requestsKeyframe: Bool { !keyframes.isEmpty }
    }

    public var viewerCount: Int { viewers.count }

    /// The target the lowest viewer allows, or with temporal layers the highest viewer, capped
    /// where the lowest one's estimate would no longer carry the base layer; the maximum while no
    /// viewer has an estimate yet.
    public var targetBitrateKbps: Int {
        guard let lowest = estimates.values.min(), let highest = estimates.values.max() else { return maxBitrateKbps }
        let target: Int
        if let encodingAllocation {
            target = Self.total(givingTopEncoding: highest, allocation: encodingAllocation, maxKbps: maxBitrateKbps)
        } else {
            target = baseLayerShare < 1 ? min(highest, Int(Double(lowest) / baseLayerShare)) : lowest
        }
        return min(maxBitrateKbps, max(minBitrateKbps, target))
    }

    /// Each encoding's rate at the current target (lowest first); `[target]` with one encoding.
    public var encodingRatesKbps: [Int] {
        encodingAllocation?(targetBitrateKbps) ?? [targetBitrateKbps]
    }

    /// The total whose allocation gives its highest encoding `kbps`: `kbps` plus what the lower
    /// encodings take at that total. The lower encodings' shares grow with the total, so three
    /// rounds from `kbps` settle it.
    static func total(givingTopEncoding kbps: Int, allocation: EncodingAllocation, maxKbps: Int) -> Int {
        var total = kbps
        for _ in 0..<3 {
            let rates = allocation(min(total, maxKbps))
            let top = rates.lastIndex { $0 > 0 } ?? 0
            let next = kbps + rates[..<top].reduce(0, +)
            if next == total { break }
            total = next
        }
        return total
    }

    /// A viewer's last estimate; nil before its first.
    public func estimate(of id: Int) -> Int? { estimates[id] }

    /// Whether the encoder should drop frames before encoding: with no viewer (nobody to send
    /// to, so the encoder idles) or while every viewer is congested.
    public var isCongested: Bool {
        viewers.isEmpty || viewers.isSubset(of: congested)
    }

    /// A viewer joined: it needs a keyframe of the encoding it starts on to decode.
    public mutating func addViewer(_ id: Int, encodingIndex: Int = 0, nowNs: Int64) -> Decision {
        let wasCongested = isCongested
        viewers.insert(id)
        var decision = keyframeRequested(encodingIndex: encodingIndex, nowNs: nowNs)
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

    /// A viewer needs a keyframe of an encoding: its receiver's PLI or FIR, its start, or a
    /// switch to another encoding.
    public mutating func keyframeRequested(encodingIndex: Int = 0, nowNs: Int64) -> Decision {
        if let last = lastKeyframeNs[encodingIndex], nowNs - last < minimumKeyframeIntervalNs {
            keyframesPending.insert(encodingIndex)
            return Decision()
        }
        lastKeyframeNs[encodingIndex] = nowNs
        keyframesPending.remove(encodingIndex)
        return Decision(keyframes: [encodingIndex])
    }

    /// Merged requests whose interval has passed are let through; called for every frame.
    public mutating func poll(nowNs: Int64) -> Decision {
        guard !keyframesPending.isEmpty else { return Decision() }
        var decision = Decision()
        for index in keyframesPending.sorted() {
            decision.keyframes += keyframeRequested(encodingIndex: index, nowNs: nowNs).keyframes
        }
        return decision
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
