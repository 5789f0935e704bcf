/// Where a sender hands each `BWETraceRecord`, on its send thread.
public typealias BWETraceSink = @Sendable (BWETraceRecord) -> Void

/// The estimator's state after one input, a line of the `--trace-bwe` CSV: enough to plot why
/// the target moved (the delay trend against its threshold, the detector and AIMD states, loss,
/// the acknowledged rate and each estimate).
public struct BWETraceRecord: Sendable, Hashable {
    /// The input that produced the record.
    public enum Event: String, Sendable, Hashable {
        case start, feedback
        case lossReport = "loss_report"
        case remb, rtt, process
    }

    public var timeNs: Int64
    public var event: Event
    /// `NetworkEstimate.targetBitrateBps` (after pushback).
    public var targetBitrateBps: Int64
    public var encoderBitrateBps: Int64
    public var pacingRateBps: Int64
    public var delayBasedBitrateBps: Int64
    public var lossBasedBitrateBps: Int64
    public var acknowledgedBitrateBps: Int64?
    /// A probe result taken with this input.
    public var probeBitrateBps: Int64?
    public var receiverLimitBps: Int64?
    /// The trendline slope (delay growth per unit time).
    public var trend: Double
    /// The slope scaled as the detector compares it (ms).
    public var modifiedTrend: Double
    public var thresholdMs: Double
    public var detectorState: BandwidthUsage
    public var rateControlState: RateControlState
    public var lossFraction: Double
    public var roundTripTimeNs: Int64
    public var congestionWindowBytes: Int?
    public var bytesInFlight: Int

    public static let csvHeader =
        "time_ms,event,target_bps,encoder_bps,pacing_bps,delay_based_bps,loss_based_bps,acked_bps,probe_bps,"
        + "remb_bps,trend,modified_trend,threshold_ms,detector_state,rate_control_state,loss_fraction,rtt_ms,"
        + "cwnd_bytes,in_flight_bytes"

    /// One CSV line (no newline) in `csvHeader`'s column order; absent values are empty cells.
    public var csvLine: String {
        let cells: [String] = [
            Self.decimal(Double(timeNs) / 1e6, places: 3), event.rawValue, String(targetBitrateBps),
            String(encoderBitrateBps), String(pacingRateBps), String(delayBasedBitrateBps), String(lossBasedBitrateBps),
            acknowledgedBitrateBps.map(String.init) ?? "", probeBitrateBps.map(String.init) ?? "",
            receiverLimitBps.map(String.init) ?? "", Self.decimal(trend, places: 6),
            Self.decimal(modifiedTrend, places: 3),
            Self.decimal(thresholdMs, places: 3), detectorState.rawValue, rateControlState.rawValue,
            Self.decimal(lossFraction, places: 4), Self.decimal(Double(roundTripTimeNs) / 1e6, places: 1),
            congestionWindowBytes.map(String.init) ?? "", String(bytesInFlight),
        ]
        return cells.joined(separator: ",")
    }

    /// `value` with a fixed number of decimals, without Foundation's formatter.
    static func decimal(_ value: Double, places: Int) -> String {
        guard value.isFinite else { return "" }
        var scale = 1.0
        for _ in 0..<places {
            scale *= 10
        }
        let scaled = Int64((abs(value) * scale).rounded())
        let divisor = Int64(scale)
        let sign = value < 0 && scaled != 0 ? "-" : ""
        guard places > 0 else { return sign + String(scaled) }
        let fraction = String(scaled % divisor)
        let padding = String(repeating: "0", count: places - fraction.count)
        return "\(sign)\(scaled / divisor).\(padding)\(fraction)"
    }
}
