/// A token bucket for offers: each one starts an ICE agent, gathers candidates and makes a DTLS
/// certificate, so a client that floods `POST /whep` is told 429 before any of that. Pure; the
/// caller passes the clock.
struct OfferRateLimiter: Sendable {
    let ratePerSecond: Double
    let burst: Double
    private var tokens: Double
    private var lastNs: Int64?

    init(ratePerSecond: Double, burst: Int) {
        self.ratePerSecond = max(0, ratePerSecond)
        self.burst = Double(max(1, burst))
        tokens = self.burst
    }

    /// True when an offer may go ahead now (and takes its token).
    mutating func admit(nowNs: Int64) -> Bool {
        if let lastNs, nowNs > lastNs {
            tokens = min(burst, tokens + Double(nowNs - lastNs) / 1e9 * ratePerSecond)
        }
        lastNs = max(lastNs ?? nowNs, nowNs)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
