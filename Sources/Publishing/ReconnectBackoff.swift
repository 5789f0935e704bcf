/// Exponential backoff with jitter between reconnection attempts: 1 s, 2 s, 4 s ... up to 30 s,
/// each scaled by a random factor in [0.8, 1.2] (and kept within 1 s and 30 s), so that many
/// publishers cut off together do not come back in step. Pure: the random source is passed in.
public struct ReconnectBackoff: Sendable, Hashable {
    public static let initialNs: Int64 = 1_000_000_000
    public static let maximumNs: Int64 = 30_000_000_000
    public static let jitter: ClosedRange<Double> = 0.8...1.2

    /// Delays handed out since the last `reset`.
    public private(set) var attempts = 0

    public init() {}

    /// The next wait, in ns.
    public mutating func nextDelayNs(using random: inout some RandomNumberGenerator) -> Int64 {
        let base = attempts >= 5 ? Self.maximumNs : min(Self.maximumNs, Self.initialNs << attempts)
        attempts += 1
        let jittered = Int64(Double(base) * Double.random(in: Self.jitter, using: &random))
        return min(Self.maximumNs, max(Self.initialNs, jittered))
    }

    /// A connection that lasted: the next failure starts again at 1 s.
    public mutating func reset() {
        attempts = 0
    }
}
