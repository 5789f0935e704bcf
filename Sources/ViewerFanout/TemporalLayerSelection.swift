import MediaCore

/// Which temporal layers one viewer of a layered stream gets, from its own estimate: the highest
/// layer whose cumulative rate its path carries, as an SFU picks for each subscriber. Pure: the
/// caller passes the clock in.
///
/// - Down-switches take effect at once: lower layers never refer to higher ones, so dropping
///   frames above the new layer leaves every forwarded frame decodable.
/// - Up-switches wait until the estimate has carried the higher layer for `upSwitchDelayNs` (an
///   estimate that grows while fewer layers are sent should not flap), and then climb one layer at
///   a time, each on a layer-sync frame of that layer (RFC 7741 §4.2, Y), which refers to the base
///   layer alone, or on a keyframe, which takes the viewer straight to its layer.
///
/// The viewer's own sender numbers what it is given, so its sequence numbers, PictureIDs and
/// TL0PICIDX have no gaps where frames were left out.
public struct TemporalLayerSelection: Sendable {
    /// Each layer's cumulative share of the encoder's rate, base first (libwebrtc's split).
    public let cumulativeShares: [Double]
    public var upSwitchDelayNs: Int64
    /// The highest layer the estimate carries.
    public private(set) var allowedLayer: Int
    /// The highest layer forwarded now: decodable from what the viewer has been sent.
    public private(set) var forwardedLayer: Int
    /// Since when the estimate has carried more than `allowedLayer`, and how much it carries now.
    private var higherSinceNs: Int64?
    private var higherLayer = 0

    /// A viewer starts on every layer, as without selection, until its first estimate.
    public init(cumulativeShares: [Double], upSwitchDelayNs: Int64 = 1_000_000_000) {
        self.cumulativeShares = cumulativeShares.isEmpty ? [1] : cumulativeShares
        self.upSwitchDelayNs = upSwitchDelayNs
        allowedLayer = self.cumulativeShares.count - 1
        forwardedLayer = allowedLayer
    }

    /// The highest layer whose cumulative rate fits `estimateKbps` when the encoder aims at
    /// `encoderKbps`; the base layer when none does.
    public func carriedLayer(estimateKbps: Int, encoderKbps: Int) -> Int {
        cumulativeShares.lastIndex { Double(encoderKbps) * $0 <= Double(estimateKbps) } ?? 0
    }

    /// The viewer's estimate or the encoder's target changed.
    public mutating func update(estimateKbps: Int, encoderKbps: Int, nowNs: Int64) {
        let carried = carriedLayer(estimateKbps: estimateKbps, encoderKbps: encoderKbps)
        if carried <= allowedLayer {
            allowedLayer = carried
            forwardedLayer = min(forwardedLayer, carried)
            higherSinceNs = nil
        } else {
            higherSinceNs = higherSinceNs ?? nowNs
            higherLayer = carried
        }
        promote(nowNs: nowNs)
    }

    /// Whether to send this frame to the viewer; called for every frame, in order.
    public mutating func forwards(_ frame: EncodedFrame, nowNs: Int64) -> Bool {
        guard let layer = frame.temporalLayer else { return true }
        promote(nowNs: nowNs)
        if frame.isKeyframe {
            forwardedLayer = allowedLayer
            return true
        }
        if layer.index <= forwardedLayer { return true }
        guard layer.index == forwardedLayer + 1, layer.index <= allowedLayer, layer.isLayerSync else { return false }
        forwardedLayer = layer.index
        return true
    }

    /// Lets a pending up-switch through once the estimate has held long enough.
    private mutating func promote(nowNs: Int64) {
        guard let since = higherSinceNs, nowNs - since >= upSwitchDelayNs else { return }
        allowedLayer = higherLayer
        higherSinceNs = nil
    }
}
