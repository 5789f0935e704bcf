/// What the send loop applies: the encoder's rate, the pacer's rates and the congestion window.
public struct NetworkEstimate: Sendable, Hashable {
    public var atTimeNs: Int64
    /// The rate the network allows for everything we send (media, retransmissions, padding),
    /// after congestion window pushback.
    public var targetBitrateBps: Int64
    /// What the encoder should produce: the target less the rate retransmissions currently
    /// take (at most half of it), never below the configured minimum.
    public var encoderBitrateBps: Int64
    /// The pacer's rate (`Pacer.setRates`): a multiple of the target before pushback, so that
    /// pushback shrinks the encoder's output rather than building a queue in the pacer.
    public var pacingRateBps: Int64
    /// The rate the pacer pads up to when it has no media (0: no padding).
    public var paddingRateBps: Int64
    /// Bytes allowed in flight (sent, not yet covered by feedback); nil before transport
    /// feedback. Pushback already applies it to `targetBitrateBps`.
    public var congestionWindowBytes: Int?
    public var bytesInFlight: Int
    public var roundTripTimeNs: Int64
    /// The loss fraction of the last loss report (0...1).
    public var lossFraction: Double

    public init(
        atTimeNs: Int64, targetBitrateBps: Int64, encoderBitrateBps: Int64, pacingRateBps: Int64,
        paddingRateBps: Int64, congestionWindowBytes: Int?, bytesInFlight: Int, roundTripTimeNs: Int64,
        lossFraction: Double
    ) {
        self.atTimeNs = atTimeNs
        self.targetBitrateBps = targetBitrateBps
        self.encoderBitrateBps = encoderBitrateBps
        self.pacingRateBps = pacingRateBps
        self.paddingRateBps = paddingRateBps
        self.congestionWindowBytes = congestionWindowBytes
        self.bytesInFlight = bytesInFlight
        self.roundTripTimeNs = roundTripTimeNs
        self.lossFraction = lossFraction
    }

    /// Whether the send loop must act on `other` (ignores the time and the bytes in flight,
    /// which change with every packet).
    func changesRates(from other: NetworkEstimate) -> Bool {
        targetBitrateBps != other.targetBitrateBps || encoderBitrateBps != other.encoderBitrateBps
            || pacingRateBps != other.pacingRateBps || paddingRateBps != other.paddingRateBps
            || congestionWindowBytes != other.congestionWindowBytes
    }
}
