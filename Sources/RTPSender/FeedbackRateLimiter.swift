/// A token bucket over incoming feedback datagrams: every one costs parsing and may trigger
/// work, so a flood is cut off at `ratePerSecond` (with bursts up to `burst`) and the rest is
/// counted as rejected. Real receivers send tens per second at most.
struct FeedbackRateLimiter {
    let ratePerSecond: Int64
    let burst: Int64
    private var tokens: Int64
    private var lastRefillNs: Int64?

    init(ratePerSecond: Int64 = 1_000, burst: Int64 = 200) {
        self.ratePerSecond = ratePerSecond
        self.burst = burst
        tokens = burst
    }

    mutating func admit(nowNs: Int64) -> Bool {
        if let lastRefillNs {
            let refill = (nowNs - lastRefillNs) * ratePerSecond / 1_000_000_000
            if refill > 0 {
                tokens = min(burst, tokens + refill)
                self.lastRefillNs = lastRefillNs + refill * 1_000_000_000 / ratePerSecond
            }
        } else {
            lastRefillNs = nowNs
        }
        guard tokens > 0 else { return false }
        tokens -= 1
        return true
    }
}
