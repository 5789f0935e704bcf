/// A token bucket: `burst` admissions at once, then `ratePerSecond`. It guards whatever a peer
/// or a client can make us do (feedback datagrams to parse, offers that start ICE agents,
/// control commands), so that a flood is cut to the rate and the rest is refused. Pure, with
/// the clock passed in; a clock that steps back gives nothing back.
public struct TokenBucket: Sendable {
    public let ratePerSecond: Double
    public let burst: Int
    private var tokens: Int
    /// The time the tokens were counted to; refills are whole tokens, so the fraction of one
    /// earned since then is not lost.
    private var refilledNs: Int64?

    public init(ratePerSecond: Double, burst: Int) {
        precondition(ratePerSecond > 0 && burst >= 1, "a token bucket needs a positive rate and burst")
        self.ratePerSecond = ratePerSecond
        self.burst = burst
        tokens = burst
    }

    /// Takes one token if there is one at `nowNs`; false when the request must be refused.
    public mutating func admit(nowNs: Int64) -> Bool {
        refill(nowNs: nowNs)
        guard tokens > 0 else { return false }
        tokens -= 1
        return true
    }

    /// How long until `admit` would succeed: 0 when a token is there now.
    public func waitNs(nowNs: Int64) -> Int64 {
        var bucket = self
        bucket.refill(nowNs: nowNs)
        guard bucket.tokens == 0, let refilledNs = bucket.refilledNs else { return 0 }
        return max(0, refilledNs + Int64((1e9 / ratePerSecond).rounded(.up)) - nowNs)
    }

    private mutating func refill(nowNs: Int64) {
        guard let refilledNs else {
            refilledNs = nowNs
            return
        }
        let elapsedNs = nowNs - refilledNs
        guard elapsedNs > 0 else { return }
        // In floating point, so that months without a request cannot overflow the product.
        let earned = Double(elapsedNs) * ratePerSecond / 1e9
        if earned >= Double(burst - tokens) {
            tokens = burst
            self.refilledNs = nowNs
        } else if earned >= 1 {
            let whole = Int(earned)
            tokens += whole
            // Rounded down: the sliver of a nanosecond goes to the next token, never lost.
            self.refilledNs = refilledNs + Int64(Double(whole) * 1e9 / ratePerSecond)
        }
    }
}
