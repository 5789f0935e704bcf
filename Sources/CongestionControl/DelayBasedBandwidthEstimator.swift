/// The delay-based estimate: packet groups → trendline → overuse detector → AIMD, as
/// libwebrtc's `DelayBasedBwe` (goog_cc/delay_based_bwe.cc).
///
/// While the detector says overuse, the rate comes down (once per RTT, from the acknowledged
/// throughput; halved every 200 ms if there is none yet). Otherwise a probe result, when there
/// is one, sets the rate outright (and, if the probe saturated the path, the link capacity
/// AIMD increases towards), and AIMD steps it up or holds. A stream silent for 2 s starts the
/// delay filters afresh, since old groups say nothing about the path now.
struct DelayBasedBandwidthEstimator: Sendable {
    struct Result: Sendable, Equatable {
        var updated = false
        var probe = false
        var targetBps = 0.0
    }

    /// One acknowledged packet, in receive-time order.
    struct ReceivedPacket: Sendable {
        var sendTimeNs: Int64
        var receiveTimeNs: Int64
        var sizeBytes: Int
    }

    static let streamTimeoutNs: Int64 = 2_000_000_000
    static let initialBackoffIntervalNs: Int64 = 200_000_000

    private var interArrival = InterArrivalDelta()
    private(set) var trendline = TrendlineEstimator()
    private(set) var detector = OveruseDetector()
    private(set) var rateControl: AIMDRateControl
    private var lastSeenPacketNs: Int64?
    private var lastInitialBackoffNs: Int64?

    init(startBitrateBps: Double, minBitrateBps: Double) {
        rateControl = AIMDRateControl(startBitrateBps: startBitrateBps, minBitrateBps: minBitrateBps)
    }

    var estimateBps: Double { rateControl.bitrateBps }

    var usage: BandwidthUsage { detector.state }

    mutating func setRTT(_ rttNs: Int64) {
        rateControl.rttNs = rttNs
    }

    /// Runs one feedback message's received packets through the filters and updates the rate.
    mutating func update(
        received: [ReceivedPacket], feedbackTimeNs: Int64, acknowledgedBps: Double?,
        probe: ProbeBitrateEstimator.Result?
    ) -> Result {
        for packet in received {
            add(packet, feedbackTimeNs: feedbackTimeNs)
        }
        guard !received.isEmpty else { return Result() }

        var result = Result()
        if detector.state == .overusing {
            if let acknowledgedBps {
                if rateControl.isTimeToReduceFurther(nowNs: feedbackTimeNs, throughputBps: acknowledgedBps) {
                    result.updated = true
                    result.targetBps = rateControl.update(
                        usage: .overusing, throughputBps: acknowledgedBps, nowNs: feedbackTimeNs)
                }
            } else if isTimeForInitialBackoff(nowNs: feedbackTimeNs) {
                lastInitialBackoffNs = feedbackTimeNs
                rateControl.setEstimate(rateControl.bitrateBps / 2, nowNs: feedbackTimeNs)
                result.updated = true
                result.targetBps = rateControl.bitrateBps
            }
        } else if let probe {
            rateControl.setEstimate(probe.bitrateBps, nowNs: feedbackTimeNs)
            if let capacityBps = probe.capacityBps {
                rateControl.onProbeCapacity(capacityBps)
            }
            result.updated = true
            result.probe = true
            result.targetBps = rateControl.bitrateBps
        } else {
            result.updated = true
            result.targetBps = rateControl.update(
                usage: detector.state, throughputBps: acknowledgedBps, nowNs: feedbackTimeNs)
        }
        return result
    }

    private func isTimeForInitialBackoff(nowNs: Int64) -> Bool {
        lastInitialBackoffNs.map { nowNs - $0 >= Self.initialBackoffIntervalNs } ?? true
    }

    private mutating func add(_ packet: ReceivedPacket, feedbackTimeNs: Int64) {
        if let lastSeenPacketNs, feedbackTimeNs - lastSeenPacketNs > Self.streamTimeoutNs {
            interArrival.reset()
            trendline = TrendlineEstimator()
            detector = OveruseDetector()
        }
        lastSeenPacketNs = feedbackTimeNs
        guard
            let deltas = interArrival.add(
                sendTimeNs: packet.sendTimeNs, arrivalTimeNs: packet.receiveTimeNs, systemTimeNs: feedbackTimeNs)
        else { return }
        let sendDeltaMs = Double(deltas.sendDeltaNs) / 1e6
        let arrivalTimeMs = Double(packet.receiveTimeNs) / 1e6
        let trend = trendline.update(
            arrivalDeltaMs: Double(deltas.arrivalDeltaNs) / 1e6, sendDeltaMs: sendDeltaMs, arrivalTimeMs: arrivalTimeMs)
        detector.detect(trend: trend, deltaCount: trendline.deltaCount, sendDeltaMs: sendDeltaMs, nowMs: arrivalTimeMs)
    }
}
