/// The overuse detector's verdict on the one-way delay trend.
public enum BandwidthUsage: String, Sendable, Hashable {
    /// The delay is steady: the path carries what we send.
    case normal
    /// The delay falls: queues drain, we send less than the path could carry.
    case underusing
    /// The delay grows: a queue builds somewhere on the path.
    case overusing
}

/// AIMD rate control's state (`AIMDRateControl`).
public enum RateControlState: String, Sendable, Hashable {
    /// Keep the rate: just after a decrease, or while queues drain.
    case hold
    case increase
    case decrease
}
