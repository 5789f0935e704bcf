/// Whether the sender protects its stream with forward error correction (RED + ULPFEC, RFC 2198
/// and RFC 5109) beside NACK.
public enum FECMode: String, Sendable, Hashable, CaseIterable {
    /// No RED, no FEC.
    case off
    /// FEC on every frame, as if the path lost at least `FECPolicy.minimumLossWhenOn`, whatever
    /// the RTT.
    case on
    /// The hybrid policy: FEC where the loss and the RTT call for it (`FECPolicy`).
    case auto
}

/// How much FEC goes with the media: the share of FEC packets per media packet, for delta frames
/// and for keyframes. libwebrtc's hybrid NACK/FEC method (`VCMNackFecMethod`) in shape, with a
/// loss model of our own in place of its offline rate table:
///
/// - With a short RTT (below `nackOnlyBelowRTTNs`), NACK repairs a loss before the receiver needs
///   the frame: delta frames get no FEC, keyframes keep theirs (a lost keyframe packet stalls
///   every frame after it).
/// - Frames smaller than `minimumFrameBytes` on a path under `maximumRTTForSmallFramesNs` get
///   none: one FEC packet would cost as much as the frame, and NACK suffices.
/// - Otherwise the FEC protects groups of packets with one parity packet each (interleaved, so
///   a burst falls into different groups), and a group is as large as it can be while a loss in
///   it is still repaired at least `targetRecoveredShare` of the time: with loss p, a group of g
///   packets keeps a lost packet's repair when the other g − 1 and the parity arrive, (1 − p)^g,
///   so g is the largest with (1 − p)^g ≥ target, and the share is 1/g: at 2 % loss 1/11, at 5 %
///   1/4 (libwebrtc's table gives 20–30 % at 5 %), capped below.
/// - Delta frames get at most a fifth: an FEC packet is as large as the largest it protects,
///   groups round up to whole packets and keyframes get more, so a fifth of the packets costs
///   about a quarter of the media bytes at 5 % loss, within the 30 % the encoder gives up for it.
///   Keyframes get twice the delta frames' share, at most a half (libwebrtc's cap).
/// - The loss is the highest of the last ten seconds (`RecentLoss`), as libwebrtc filters it.
///
/// Pure: the caller passes what it measured.
public struct FECPolicy: Sendable, Hashable {
    public static let nackOnlyBelowRTTNs: Int64 = 20_000_000
    public static let maximumRTTForSmallFramesNs: Int64 = 200_000_000
    public static let minimumFrameBytes = 1_000
    public static let targetRecoveredShare = 0.8
    public static let maximumDeltaShare = 0.2
    public static let maximumKeyShare = 0.5
    /// With `on`, the loss the protection assumes at the least.
    public static let minimumLossWhenOn = 0.05

    public struct Protection: Sendable, Hashable {
        /// FEC packets per media packet.
        public var delta: Double
        public var key: Double

        public static let none = Protection(delta: 0, key: 0)
    }

    public let mode: FECMode

    public init(mode: FECMode) {
        self.mode = mode
    }

    public func protection(lossFraction: Double, roundTripTimeNs: Int64, bytesPerFrame: Double) -> Protection {
        switch mode {
        case .off:
            return .none
        case .on:
            return Self.protection(forLoss: max(lossFraction, Self.minimumLossWhenOn))
        case .auto:
            guard lossFraction > 0 else { return .none }
            if bytesPerFrame < Double(Self.minimumFrameBytes) && roundTripTimeNs < Self.maximumRTTForSmallFramesNs { return .none }
            var protection = Self.protection(forLoss: lossFraction)
            if roundTripTimeNs < Self.nackOnlyBelowRTTNs { protection.delta = 0 }
            return protection
        }
    }

    /// One parity packet per group of g, g as large as keeps `targetRecoveredShare` of losses
    /// repaired (at most the 48 packets one ULPFEC packet protects).
    static func protection(forLoss loss: Double) -> Protection {
        let arrives = 1 - min(max(loss, 0), 0.5)
        guard arrives < 1 else { return .none }
        var groupSize = 1
        var repaired = arrives
        while groupSize < 48 && repaired * arrives >= targetRecoveredShare {
            groupSize += 1
            repaired *= arrives
        }
        let share = 1 / Double(groupSize)
        return Protection(delta: min(maximumDeltaShare, share), key: min(maximumKeyShare, 2 * share))
    }
}
