/// Groups packets by send time and yields the send and arrival spacing of consecutive groups,
/// after libwebrtc's `InterArrivalDelta` (goog_cc/inter_arrival_delta.cc).
///
/// A group is every packet sent within 5 ms of the group's first one: a video frame leaves the
/// pacer as one such group. A packet that arrives in a burst with the group (less delayed than
/// the group's last packet, at most 5 ms after it) joins it, since a burst (radio aggregation)
/// tells nothing about queueing. Groups whose arrival order contradicts their send order are
/// skipped; three in a row, or an arrival clock that runs 3 s off the local clock, restart the
/// grouping.
///
/// Two departures from libwebrtc, both because our pacer sends a frame as one burst (up to
/// 40 ms of data at once):
/// - Groups are spaced by their *first* packets (send and arrival), not their last. The last
///   packet's delay includes the time the bottleneck takes to serialise the frame ahead of it,
///   so a bigger frame looks like a growing queue: when a probe tripled the rate, the trendline
///   saw a 25 ms step and reported overuse at 95 % load. The first packet's delay is the queue
///   the frame found, which is what the detector is after.
/// - A packet joins the group as part of a burst only if it was sent within 5 ms of the
///   group's last packet. Behind a backlogged bottleneck of ≥ 1.9 Mbit/s every 1200-byte
///   packet arrives < 5 ms after the one before, so libwebrtc merges whole frames into groups
///   of up to 100 ms; that stretches the 20-group trendline window to 2 s and delayed overuse
///   detection by about a second (queueing delay p95 70 → 43 ms at 2 Mbit/s).
struct InterArrivalDelta: Sendable {
    /// The spacing of one group from the one before it.
    struct Deltas: Sendable, Equatable {
        var sendDeltaNs: Int64
        var arrivalDeltaNs: Int64
    }

    private struct PacketGroup: Sendable {
        var firstSendNs: Int64
        var lastSendNs: Int64
        var firstArrivalNs: Int64
        var completeNs: Int64
        var lastSystemNs: Int64
    }

    static let groupLengthNs: Int64 = 5_000_000
    static let burstDeltaThresholdNs: Int64 = 5_000_000
    static let maxBurstDurationNs: Int64 = 100_000_000
    static let arrivalTimeOffsetThresholdNs: Int64 = 3_000_000_000
    static let reorderedResetThreshold = 3

    private var current: PacketGroup?
    private var previous: PacketGroup?
    private var consecutiveReorderedGroups = 0

    /// Adds one received packet: its send time (our clock), its arrival time (the receiver's
    /// clock) and the local time the feedback was handled at. Returns the deltas when the packet
    /// opens a new group and so completes the one before.
    mutating func add(sendTimeNs: Int64, arrivalTimeNs: Int64, systemTimeNs: Int64) -> Deltas? {
        guard var group = current else {
            current = PacketGroup(
                firstSendNs: sendTimeNs, lastSendNs: sendTimeNs, firstArrivalNs: arrivalTimeNs,
                completeNs: arrivalTimeNs, lastSystemNs: systemTimeNs)
            return nil
        }
        if sendTimeNs < group.firstSendNs {
            return nil  // Reordered behind its group: its timing says nothing new.
        }
        var deltas: Deltas?
        if startsNewGroup(group, sendTimeNs: sendTimeNs, arrivalTimeNs: arrivalTimeNs) {
            if let previous {
                let sendDeltaNs = group.firstSendNs - previous.firstSendNs
                let arrivalDeltaNs = group.firstArrivalNs - previous.firstArrivalNs
                let systemDeltaNs = group.lastSystemNs - previous.lastSystemNs
                if arrivalDeltaNs - systemDeltaNs >= Self.arrivalTimeOffsetThresholdNs {
                    reset()
                    return nil
                }
                if arrivalDeltaNs < 0 {
                    consecutiveReorderedGroups += 1
                    if consecutiveReorderedGroups >= Self.reorderedResetThreshold {
                        reset()
                    }
                    return nil
                }
                consecutiveReorderedGroups = 0
                deltas = Deltas(sendDeltaNs: sendDeltaNs, arrivalDeltaNs: arrivalDeltaNs)
            }
            previous = group
            group = PacketGroup(
                firstSendNs: sendTimeNs, lastSendNs: sendTimeNs, firstArrivalNs: arrivalTimeNs,
                completeNs: arrivalTimeNs, lastSystemNs: systemTimeNs)
        } else {
            group.lastSendNs = max(group.lastSendNs, sendTimeNs)
        }
        group.completeNs = arrivalTimeNs
        group.lastSystemNs = systemTimeNs
        current = group
        return deltas
    }

    mutating func reset() {
        current = nil
        previous = nil
        consecutiveReorderedGroups = 0
    }

    private func startsNewGroup(_ group: PacketGroup, sendTimeNs: Int64, arrivalTimeNs: Int64) -> Bool {
        if belongsToBurst(group, sendTimeNs: sendTimeNs, arrivalTimeNs: arrivalTimeNs) {
            return false
        }
        return sendTimeNs - group.firstSendNs > Self.groupLengthNs
    }

    private func belongsToBurst(_ group: PacketGroup, sendTimeNs: Int64, arrivalTimeNs: Int64) -> Bool {
        let arrivalDeltaNs = arrivalTimeNs - group.completeNs
        let sendDeltaNs = sendTimeNs - group.lastSendNs
        if sendDeltaNs == 0 {
            return true
        }
        let propagationDeltaNs = arrivalDeltaNs - sendDeltaNs
        return sendDeltaNs <= Self.groupLengthNs && propagationDeltaNs < 0
            && arrivalDeltaNs <= Self.burstDeltaThresholdNs
            && arrivalTimeNs - group.firstArrivalNs < Self.maxBurstDurationNs
    }
}
