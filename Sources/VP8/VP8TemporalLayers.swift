import MediaCore

/// VP8's three reference buffers (RFC 6386 §9.7).
public struct VP8Buffers: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    public static let last = VP8Buffers(rawValue: 1)
    public static let golden = VP8Buffers(rawValue: 2)
    public static let altref = VP8Buffers(rawValue: 4)
    public static let all: VP8Buffers = [.last, .golden, .altref]
}

/// How one frame is coded within the temporal pattern: the buffers it may predict from and
/// those it refreshes, whether it leaves the entropy context alone, and its layer.
public struct VP8FrameDependencies: Sendable, Equatable {
    public var references: VP8Buffers
    public var updates: VP8Buffers
    /// Higher-layer frames that nothing refers to keep the probabilities the next base frame
    /// expects, so losing them costs nothing (`VP8_EFLAG_NO_UPD_ENTROPY`).
    public var freezesEntropy: Bool
    public var layer: Int
    /// A frame above the base that refers to base-layer (or keyframe) content only.
    public var isLayerSync: Bool

    public init(references: VP8Buffers, updates: VP8Buffers, freezesEntropy: Bool = false, layer: Int, isLayerSync: Bool = false) {
        self.references = references
        self.updates = updates
        self.freezesEntropy = freezesEntropy
        self.layer = layer
        self.isLayerSync = isLayerSync
    }
}

/// libwebrtc's default VP8 temporal layers (`DefaultTemporalLayers`): which layer each frame
/// belongs to, which buffers it predicts from and refreshes, and which frames are layer-sync
/// points, for two or three layers (with one, libvpx keeps its own reference choices). Pure;
/// the encoder asks `nextFrame()` before coding a picture and reports what came of it.
///
/// ```
/// 2 layers (4-frame pattern)       3 layers (8-frame pattern)
///   1---1   1---1                    2   2   2   2   2   2   2   2
///  /   /   /   /                       1       1       1       1
/// 0---0---0---0                    0       0       0       0
/// ```
/// The base layer refreshes `last`; layer 1 refreshes `golden`; layer 2 refreshes nothing; no
/// layer refreshes `altref`, which thus holds the last keyframe. Layer 1 and 2 resynchronise
/// every pattern: their first frame after the base frame that starts it refers to `last` only.
/// A reference to a buffer that was not refreshed in the current pattern (its frame was
/// dropped by rate control) is removed, so no frame depends on one a receiver never got.
public struct VP8TemporalLayers: Sendable {
    /// libwebrtc's temporal layer shares of an encoding's rate, cumulative
    /// (`kLayerRateAllocation`): two layers 60 % + 40 %, three 40 % + 20 % + 40 %.
    public static func cumulativeRateShares(layerCount: Int) -> [Double] {
        switch layerCount {
        case 2: [0.6, 1.0]
        case 3: [0.4, 0.6, 1.0]
        default: [1.0]
        }
    }

    /// What `--temporal-layers` accepts; one layer needs no pattern.
    public static let supportedLayerCounts = 1...3

    public let layerCount: Int
    private let pattern: [VP8FrameDependencies]
    /// Buffers the pattern never refreshes: only keyframes fill them, so they are always safe.
    private let keyframeBuffers: VP8Buffers
    private var patternIndex: Int?
    /// Frames begun since each buffer was last refreshed, indexed last, golden, altref.
    private var framesSinceRefresh = [0, 0, 0]
    /// The frame being coded (libvpx codes one at a time, with no lag).
    private var pending: VP8FrameDependencies?

    public init(layerCount: Int) {
        precondition((2...3).contains(layerCount), "a temporal pattern has 2 or 3 layers, not \(layerCount)")
        self.layerCount = layerCount
        pattern = Self.pattern(layerCount: layerCount)
        keyframeBuffers = pattern.reduce(VP8Buffers.all) { $0.subtracting($1.updates) }
    }

    /// The layer of each frame within one period of the pattern (libvpx's `ts_layer_id`).
    public var layerIDs: [Int] {
        layerCount == 2 ? [0, 1] : [0, 2, 1, 2]
    }

    /// Each layer's share of the frame rate as libvpx's divisor (`ts_rate_decimator`): 4, 2, 1.
    public var rateDecimators: [Int] {
        (0..<layerCount).map { 1 << (layerCount - $0 - 1) }
    }

    /// The cumulative target of each layer for an encoding at `kbps` (libvpx's
    /// `ts_target_bitrate`), rounded as libwebrtc rounds them; the top layer gets it all.
    public func cumulativeLayerKbps(total kbps: Int) -> [Int] {
        Self.cumulativeRateShares(layerCount: layerCount).map { Int(Double(kbps) * $0 + 0.5) }
    }

    /// The next frame's dependencies; a keyframe overrides them (and restarts the pattern once
    /// coded).
    public mutating func nextFrame() -> VP8FrameDependencies {
        let isFirst = patternIndex == nil
        let index = ((patternIndex ?? -1) + 1) % pattern.count
        patternIndex = index
        var dependencies = pattern[index]
        if isFirst {
            dependencies = VP8FrameDependencies(references: [], updates: .all, layer: 0)
        } else {
            for buffer in [VP8Buffers.golden, .altref] where dependencies.references.contains(buffer) {
                if !keyframeBuffers.contains(buffer) && framesSinceRefresh[Self.slot(buffer)] >= index {
                    dependencies.references.remove(buffer)
                }
            }
            dependencies.isLayerSync = isLayerSync(dependencies)
            for slot in framesSinceRefresh.indices { framesSinceRefresh[slot] += 1 }
        }
        pending = dependencies
        return dependencies
    }

    /// The frame from the last `nextFrame()` was coded; its layer as the payload descriptor
    /// carries it (nil without a `nextFrame()` first). A keyframe is layer 0, a sync point, and
    /// restarts the pattern.
    public mutating func frameEncoded(isKeyframe: Bool) -> EncodedFrame.TemporalLayer? {
        guard let frame = pending else { return nil }
        pending = nil
        // A keyframe refreshes every buffer.
        let updates = isKeyframe ? VP8Buffers.all : frame.updates
        for buffer in [VP8Buffers.last, .golden, .altref] where updates.contains(buffer) {
            framesSinceRefresh[Self.slot(buffer)] = 0
        }
        guard !isKeyframe else {
            patternIndex = 0
            return EncodedFrame.TemporalLayer(index: 0, isLayerSync: true)
        }
        return EncodedFrame.TemporalLayer(index: frame.layer, isLayerSync: frame.isLayerSync)
    }

    /// Rate control dropped the frame from the last `nextFrame()`: it refreshed nothing.
    public mutating func frameDropped() {
        pending = nil
    }

    /// A frame above the base that predicts from `last` (always base content) and otherwise
    /// only from buffers that hold nothing but keyframes.
    private func isLayerSync(_ dependencies: VP8FrameDependencies) -> Bool {
        guard dependencies.layer > 0, dependencies.references.contains(.last) else { return false }
        return dependencies.references.subtracting(.last).isSubset(of: keyframeBuffers)
    }

    private static func slot(_ buffer: VP8Buffers) -> Int {
        switch buffer {
        case .last: 0
        case .golden: 1
        default: 2
        }
    }

    /// libwebrtc's patterns: 2 layers its default short pattern, 3 layers its default 8-frame one.
    private static func pattern(layerCount: Int) -> [VP8FrameDependencies] {
        if layerCount == 2 {
            return [
                VP8FrameDependencies(references: .last, updates: .last, layer: 0),
                VP8FrameDependencies(references: .last, updates: .golden, layer: 1),
                VP8FrameDependencies(references: .last, updates: .last, layer: 0),
                VP8FrameDependencies(references: [.last, .golden], updates: [], freezesEntropy: true, layer: 1),
            ]
        }
        return [
            VP8FrameDependencies(references: .last, updates: .last, layer: 0),
            VP8FrameDependencies(references: .last, updates: [], freezesEntropy: true, layer: 2),
            VP8FrameDependencies(references: .last, updates: .golden, layer: 1),
            VP8FrameDependencies(references: [.last, .golden], updates: [], freezesEntropy: true, layer: 2),
            VP8FrameDependencies(references: .last, updates: .last, layer: 0),
            VP8FrameDependencies(references: [.last, .golden], updates: [], freezesEntropy: true, layer: 2),
            VP8FrameDependencies(references: [.last, .golden], updates: .golden, layer: 1),
            VP8FrameDependencies(references: [.last, .golden], updates: [], freezesEntropy: true, layer: 2),
        ]
    }
}
