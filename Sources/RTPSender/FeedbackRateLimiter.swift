/// A token bucket over incoming feedback datagrams: every one costs parsing and may trigger
/// work, so a flood is cut off at `ratePerSecond` (with bursts up to `burst`) and the rest is
/// counted as rejected. Real receivers send tens per second at most.
struct FeedbackRateLimiter {
    let ratePerSecond: Int64
    let burst: Int64
    private var tokens: Int64
    private var lastRefillNs: Int64?

    init(ratePerSecond: Int64 = 1_000, burst: Int64 = 200) {
        precondition(ratePerSecond > 0 && burst > 0, "a feedback rate limit needs a positive rate and burst")
        self.ratePerSecond = ratePerSecond
        self.burst = burst
        tokens = burst
    }

    mutating func admit(nowNs: Int64) -> Bool {
        if let lastRefillNs {
            let elapsedNs = nowNs - lastRefillNs
            if elapsedNs >= burst * 1_000_000_000 / ratePerSecond {
                // Time enough to fill the bucket; checked first so that the product below cannot
                // overflow after months without feedback.
                tokens = burst
                self.lastRefillNs = nowNs
            } else {
                let refill = elapsedNs * ratePerSecond / 1_000_000_000
                if refill > 0 {
                    tokens = min(burst, tokens + refill)
                    self.lastRefillNs = lastRefillNs + refill * 1_000_000_000 / ratePerSecond
                }
            }
        } else {
            lastRefillNs = nowNs
        }
        guard tokens > 0 else { return false }
        tokens -= 1
        return true
    }
}
