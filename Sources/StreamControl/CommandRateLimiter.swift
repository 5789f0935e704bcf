/// A token bucket over every connection of a control socket: `burst` commands at once, then
/// `commandsPerSecond`, so that a runaway script cannot keep the stream busy switching cameras.
/// Pure, with the clock passed in.
public struct CommandRateLimiter: Sendable {
    public let commandsPerSecond: Double
    public let burst: Int
    private var tokens: Double
    private var lastNs: Int64?

    public init(commandsPerSecond: Double, burst: Int) {
        precondition(commandsPerSecond > 0 && burst >= 1, "a rate limiter needs a positive rate and burst")
        self.commandsPerSecond = commandsPerSecond
        self.burst = burst
        tokens = Double(burst)
    }

    /// Takes one token if there is one at `nowNs`; false when the command must be refused.
    public mutating func admit(nowNs: Int64) -> Bool {
        if let lastNs, nowNs > lastNs {
            tokens = min(Double(burst), tokens + Double(nowNs - lastNs) / 1e9 * commandsPerSecond)
        }
        lastNs = max(lastNs ?? nowNs, nowNs)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
