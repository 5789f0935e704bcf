import MediaCore

/// Which simulcast encoding one viewer gets, from its own estimate: the highest encoding whose
/// rate its path carries, as an SFU picks a spatial layer for each subscriber. Pure: the caller
/// passes the clock in, and asks the encoder for the keyframe a switch waits for.
///
/// Each encoding's frames refer only to that encoding's earlier frames, so a viewer can only
/// change encoding on a keyframe of the new one:
/// - Down-switches are decided at once: from then on the viewer needs a keyframe of the lower
///   encoding (`takeKeyframeRequest()` says which, once), and keeps getting the encoding it
///   decodes until it comes (its temporal layers shrink meanwhile, as `TemporalLayerSelection`
///   decides).
/// - Up-switches wait until the estimate has carried the higher encoding for `upSwitchDelayNs`,
///   so that an estimate that grows while less is sent does not flap between encodings.
/// - While an up-switch waits, the viewer's sender pads up to the higher encoding's rate
///   (`paddingProbeKbps`), so the wait shows whether the path carries it before any picture
///   depends on it: an estimate can promise what the path does not carry (behind a policer, a
///   viewer sent little sees no loss while the policer's bucket refills, and its estimate grows
///   8 % a second). A probe that loses packets (`paddingProbeFailed`) cancels the up-switch.
/// - A failed probe also caps the estimate the viewer steers the encoder with (`ceilingKbps`)
///   at the rate its path refused, until an up-switch is made: otherwise that estimate, which
///   the path does not bear out, could set the largest encoding's rate above what the viewers
///   who could take it carry, and push them down with it.
/// - An up-switch that is undone within `failedUpSwitchWindowNs`, or whose probe failed, failed.
///   Each failure doubles the wait before the next attempt, up to `maximumUpSwitchDelayNs`, and
///   no attempt (nor probe) starts before that wait has passed; an up-switch that holds brings it
///   back to `upSwitchDelayNs`, as an SFU backs off its probes.
///
/// The viewer's own sender numbers what it is given, so the switch leaves no gap in its
/// sequence numbers and PictureIDs, and the receiver sees a keyframe of another size.
public struct SimulcastSelection: Sendable {
    public var upSwitchDelayNs: Int64
    public var failedUpSwitchWindowNs: Int64 = 10_000_000_000
    public var maximumUpSwitchDelayNs: Int64 = 64_000_000_000
    /// A padding probe fills up to this many times the higher encoding's rate.
    static let probeFactor = 2
    /// The wait before the next up-switch: `upSwitchDelayNs`, doubled by each failed one.
    public private(set) var currentUpSwitchDelayNs: Int64
    /// The encoding the viewer should get: the highest its estimate carries, once held long
    /// enough for an up-switch.
    public private(set) var targetEncoding: Int
    /// The encoding whose frames the viewer is sent; nil until its first keyframe.
    public private(set) var forwardedEncoding: Int?
    private var higherSinceNs: Int64?
    private var higherEncoding = 0
    /// When the last up-switch was decided, while it may still turn out to have failed.
    private var upSwitchedAtNs: Int64?
    /// The encoding a keyframe was last asked for, so that each switch asks once.
    private var requestedKeyframe: Int?
    /// The forwarded encoding's last frame while an up-switch waits (see `take`).
    private var heldFrame: EncodedFrame?
    /// After a failed probe, no attempt starts before this.
    private var nextAttemptNs: Int64?
    /// The rate the viewer's path refused in its last padding probe, until an up-switch is made.
    public private(set) var ceilingKbps: Int?

    /// A viewer starts on the highest of `encodingCount` encodings, as without simulcast, until
    /// its first estimate.
    public init(encodingCount: Int, upSwitchDelayNs: Int64 = 1_000_000_000) {
        self.upSwitchDelayNs = upSwitchDelayNs
        currentUpSwitchDelayNs = upSwitchDelayNs
        targetEncoding = max(1, encodingCount) - 1
    }

    /// The encoding a switch waits for a keyframe of; nil while the viewer gets its target.
    public var awaitedKeyframe: Int? {
        forwardedEncoding == targetEncoding ? nil : targetEncoding
    }

    /// The encoding an up-switch waits to move to; nil when none waits.
    public var pendingUpSwitch: Int? {
        higherSinceNs == nil ? nil : higherEncoding
    }

    /// What the viewer's sender should pad up to while an up-switch waits: the higher encoding's
    /// rate, twice over so that a policer's bucket empties within the wait, at most the estimate;
    /// 0 when no up-switch waits.
    public func paddingProbeKbps(estimateKbps: Int, encodingRatesKbps: [Int]) -> Int {
        guard let pending = pendingUpSwitch, encodingRatesKbps.indices.contains(pending) else { return 0 }
        return min(estimateKbps, Self.probeFactor * encodingRatesKbps[pending])
    }

    /// The viewer's padding probe of `goalKbps` lost packets: its path does not carry the higher
    /// encoding. The up-switch is cancelled and counts as failed.
    public mutating func paddingProbeFailed(goalKbps: Int, nowNs: Int64) {
        guard higherSinceNs != nil else { return }
        higherSinceNs = nil
        if goalKbps > 0 { ceilingKbps = min(ceilingKbps ?? .max, goalKbps) }
        currentUpSwitchDelayNs = min(maximumUpSwitchDelayNs, currentUpSwitchDelayNs * 2)
        nextAttemptNs = nowNs + currentUpSwitchDelayNs
    }

    /// The highest encoding whose rate (`encodingRatesKbps`, lowest first; 0 while paused) fits
    /// `estimateKbps`; the lowest one sent when none does.
    public static func carriedEncoding(estimateKbps: Int, encodingRatesKbps: [Int]) -> Int {
        let sent = encodingRatesKbps.indices.filter { encodingRatesKbps[$0] > 0 }
        return sent.last { encodingRatesKbps[$0] <= estimateKbps } ?? sent.first ?? 0
    }

    /// The encoding to ask the encoder for a keyframe of, once per switch; nil when none is due.
    public mutating func takeKeyframeRequest() -> Int? {
        guard let awaited = awaitedKeyframe, awaited != requestedKeyframe else { return nil }
        requestedKeyframe = awaited
        return awaited
    }

    /// The viewer's estimate or the encodings' rates changed.
    public mutating func update(estimateKbps: Int, encodingRatesKbps: [Int], nowNs: Int64) {
        let carried = Self.carriedEncoding(estimateKbps: estimateKbps, encodingRatesKbps: encodingRatesKbps)
        settleUpSwitch(nowNs: nowNs)
        if carried <= targetEncoding {
            if carried < targetEncoding, upSwitchedAtNs != nil {
                currentUpSwitchDelayNs = min(maximumUpSwitchDelayNs, currentUpSwitchDelayNs * 2)
                upSwitchedAtNs = nil
            }
            targetEncoding = carried
            higherSinceNs = nil
        } else if nowNs >= nextAttemptNs ?? .min {
            higherSinceNs = higherSinceNs ?? nowNs
            higherEncoding = carried
        }
        promote(nowNs: nowNs)
    }

    /// What to send the viewer for this frame, in order; called for every frame of every
    /// encoding, in the order the encoder hands them on (a capture's encodings lowest first).
    /// A frame of the forwarded encoding goes on; a keyframe of the target makes the target the
    /// forwarded encoding.
    ///
    /// While an up-switch waits, the forwarded encoding's frame is held until the next frame
    /// arrives: a keyframe of the higher target from the same capture replaces it, so the viewer
    /// never gets two pictures of one capture time. A held frame is late by at most one capture.
    public mutating func take(_ frame: EncodedFrame, nowNs: Int64) -> [EncodedFrame] {
        promote(nowNs: nowNs)
        let switches = frame.isKeyframe && frame.encodingIndex == targetEncoding
        var frames: [EncodedFrame] = []
        if let held = heldFrame {
            heldFrame = nil
            if !(switches && frame.timestampNs == held.timestampNs) { frames.append(held) }
        }
        if switches {
            forwardedEncoding = targetEncoding
            requestedKeyframe = nil
            frames.append(frame)
        } else if let forwarded = forwardedEncoding, frame.encodingIndex == forwarded {
            if targetEncoding > forwarded { heldFrame = frame } else { frames.append(frame) }
        }
        return frames
    }

    /// Lets a pending up-switch through once the estimate has held long enough.
    private mutating func promote(nowNs: Int64) {
        guard let since = higherSinceNs, nowNs - since >= currentUpSwitchDelayNs else { return }
        targetEncoding = higherEncoding
        higherSinceNs = nil
        upSwitchedAtNs = nowNs
        ceilingKbps = nil
    }

    /// An up-switch that has held for the window succeeded: the wait is short again.
    private mutating func settleUpSwitch(nowNs: Int64) {
        guard let at = upSwitchedAtNs, nowNs - at >= failedUpSwitchWindowNs else { return }
        upSwitchedAtNs = nil
        currentUpSwitchDelayNs = upSwitchDelayNs
    }
}
