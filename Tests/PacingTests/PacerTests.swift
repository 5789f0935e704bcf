import CongestionControl
import Pacing
import Testing

private let ms: Int64 = 1_000_000

/// Runs the pacer as the send loop does: wake at `nextSendTimeNs`, release everything due.
/// Returns (time, packet) for every release until the queue is empty or `untilNs`.
private func drain(_ pacer: inout Pacer, fromNs startNs: Int64 = 0, untilNs: Int64 = 60_000 * ms) -> [(
    timeNs: Int64, packet: PacedPacket
)] {
    var released: [(Int64, PacedPacket)] = []
    var nowNs = startNs
    while let wakeNs = pacer.nextSendTimeNs(nowNs: nowNs), wakeNs <= untilNs {
        nowNs = wakeNs
        while let packet = pacer.dequeue(nowNs: nowNs) {
            released.append((nowNs, packet))
        }
        if pacer.queuedPacketCount == 0 && pacer.paddingNeeded(nowNs: nowNs) == 0 {
            break
        }
    }
    return released
}

private func enqueue(
    _ pacer: inout Pacer, count: Int, sizeBytes: Int = 1000, kind: PacketKind = .media, atNs: Int64 = 0,
    firstHandle: Int = 0
) {
    for handle in firstHandle..<(firstHandle + count) {
        pacer.enqueue(handle, sizeBytes: sizeBytes, kind: kind, nowNs: atNs)
    }
}

@Suite struct PacerBudgetTests {
    @Test func releasesABurstThenPacesAtTheRate() {
        var pacer = Pacer(pacingRateBps: 1_000_000)
        enqueue(&pacer, count: 10)
        let released = drain(&pacer)
        // 40 ms at 1 Mbit/s is 5000 bytes; the packet that crosses it still goes.
        #expect(released.prefix(6).allSatisfy { $0.timeNs == 0 })
        #expect(released.dropFirst(6).map(\.timeNs) == [8, 16, 24, 32].map { $0 * ms })
        #expect(released.map(\.packet.handle) == Array(0..<10))
    }

    @Test func aLongBacklogLeavesAtThePacingRate() {
        var pacer = Pacer(pacingRateBps: 1_000_000)
        enqueue(&pacer, count: 100)
        let released = drain(&pacer)
        #expect(released.count == 100)
        // After the 6-packet burst, one 1000-byte packet every 8 ms.
        #expect(abs(released[99].timeNs - 94 * 8 * ms) < 1000)
    }

    @Test func burstsNeverExceedSixtyThreeKilobytes() {
        var pacer = Pacer(pacingRateBps: 20_000_000)
        enqueue(&pacer, count: 100)
        let burst = drain(&pacer).filter { $0.timeNs == 0 }
        #expect(burst.count == 64)
    }

    @Test func aZeroBurstIntervalSpacesEveryPacket() {
        var pacer = Pacer(configuration: PacerConfiguration(burstIntervalNs: 0), pacingRateBps: 1_000_000)
        enqueue(&pacer, count: 3)
        #expect(drain(&pacer).map(\.timeNs) == [0, 8 * ms, 16 * ms])
    }

    @Test func idleTimeEarnsNoMoreThanOneBurst() {
        var pacer = Pacer(pacingRateBps: 1_000_000)
        enqueue(&pacer, count: 10, atNs: 10_000 * ms)
        let released = drain(&pacer, fromNs: 10_000 * ms)
        #expect(released.filter { $0.timeNs == 10_000 * ms }.count == 6)
    }

    @Test func aNewRateAppliesToWhatIsQueued() {
        var pacer = Pacer(configuration: PacerConfiguration(burstIntervalNs: 0), pacingRateBps: 1_000_000)
        enqueue(&pacer, count: 3)
        #expect(pacer.dequeue(nowNs: 0) != nil)
        pacer.setRates(pacingRateBps: 2_000_000, paddingRateBps: 0, nowNs: 0)
        #expect(pacer.nextSendTimeNs(nowNs: 0) == 4 * ms)
    }

    @Test func nothingToDoMeansNoWakeUp() {
        var pacer = Pacer(pacingRateBps: 1_000_000)
        #expect(pacer.nextSendTimeNs(nowNs: 0) == nil)
        #expect(pacer.dequeue(nowNs: 0) == nil)
    }
}

@Suite struct PacerQueueTests {
    @Test func retransmissionsFirstThenMediaThenPaddingEachInOrder() {
        var pacer = Pacer(configuration: PacerConfiguration(isPacingEnabled: false), pacingRateBps: 1_000_000)
        let kinds: [PacketKind] = [.media, .padding, .retransmission, .media, .retransmission, .padding]
        for (handle, kind) in kinds.enumerated() {
            pacer.enqueue(handle, sizeBytes: 500, kind: kind, nowNs: 0)
        }
        #expect(drain(&pacer).map(\.packet.handle) == [2, 4, 0, 3, 1, 5])
    }

    @Test func pacingOffReleasesEverythingAtOnce() {
        var pacer = Pacer(configuration: PacerConfiguration(isPacingEnabled: false), pacingRateBps: 100_000)
        enqueue(&pacer, count: 50)
        #expect(pacer.nextSendTimeNs(nowNs: 5 * ms) == 5 * ms)
        let released = drain(&pacer, fromNs: 5 * ms)
        #expect(released.count == 50)
        #expect(released.allSatisfy { $0.timeNs == 5 * ms })
    }

    @Test func theRateRisesSoThatPacketsWaitAtMostTheQueueLimit() {
        var pacer = Pacer(pacingRateBps: 100_000)
        // 100 kB at 100 kbit/s would take 8 s.
        enqueue(&pacer, count: 100)
        #expect(pacer.effectiveRateBps(nowNs: 0) == 400_000)
        #expect(pacer.expectedQueueTimeNs(nowNs: 0) == 2000 * ms)
        let released = drain(&pacer)
        #expect(released.count == 100)
        #expect(released.last.map { $0.timeNs <= 2000 * ms } ?? false)
        #expect(released.allSatisfy { $0.timeNs - $0.packet.enqueueTimeNs <= 2000 * ms })
    }

    @Test func reportsWhatItHolds() {
        var pacer = Pacer(pacingRateBps: 1_000_000)
        enqueue(&pacer, count: 2, sizeBytes: 700, atNs: 3 * ms)
        enqueue(&pacer, count: 1, sizeBytes: 600, kind: .retransmission, atNs: 5 * ms, firstHandle: 2)
        #expect(pacer.queuedPacketCount == 3)
        #expect(pacer.queuedBytes == 2000)
        #expect(pacer.oldestEnqueueTimeNs == 3 * ms)
        #expect(pacer.expectedQueueTimeNs(nowNs: 5 * ms) == 16 * ms)
        let first = pacer.dequeue(nowNs: 5 * ms)
        #expect(first?.kind == .retransmission)
        #expect(first?.enqueueTimeNs == 5 * ms)
        #expect(pacer.queuedBytes == 1400)
    }
}

@Suite struct PacerProbeTests {
    private let cluster = ProbeCluster(id: 9, bitrateBps: 1_000_000, minPackets: 5, minBytes: 1875, createdAtNs: 0)

    @Test func sendsAClusterAtItsRateAheadOfTheBudget() {
        var pacer = Pacer(pacingRateBps: 100_000)
        pacer.addProbeCluster(cluster, nowNs: 0)
        enqueue(&pacer, count: 10, sizeBytes: 500)
        let released = drain(&pacer)
        // 500 bytes at 1 Mbit/s: one probe every 4 ms, five of them, then the budget's pace.
        #expect(released.prefix(5).map(\.timeNs) == [0, 4, 8, 12, 16].map { $0 * ms })
        #expect(released.prefix(5).allSatisfy { $0.packet.probeClusterID == 9 })
        #expect(released.dropFirst(5).allSatisfy { $0.packet.probeClusterID == nil })
        #expect(released[5].timeNs > 100 * ms)
    }

    @Test func nothingElseLeavesBetweenTwoProbePackets() {
        var pacer = Pacer(pacingRateBps: 10_000_000)
        pacer.addProbeCluster(cluster, nowNs: 0)
        enqueue(&pacer, count: 10, sizeBytes: 500)
        #expect(pacer.dequeue(nowNs: 0)?.probeClusterID == 9)
        #expect(pacer.dequeue(nowNs: 2 * ms) == nil)
        #expect(pacer.nextSendTimeNs(nowNs: 2 * ms) == 4 * ms)
    }

    @Test func asksForPaddingWhenTheQueueRunsDry() {
        var pacer = Pacer(pacingRateBps: 100_000)
        pacer.addProbeCluster(cluster, nowNs: 0)
        enqueue(&pacer, count: 1, sizeBytes: 1000)
        #expect(pacer.dequeue(nowNs: 0)?.probeClusterID == 9)
        #expect(pacer.nextSendTimeNs(nowNs: 0) == 8 * ms)
        #expect(pacer.dequeue(nowNs: 8 * ms) == nil)
        // 2 ms at 1 Mbit/s is 250 bytes.
        #expect(pacer.paddingNeeded(nowNs: 8 * ms) == 250)
        pacer.enqueue(1, sizeBytes: 250, kind: .padding, nowNs: 8 * ms)
        let padding = pacer.dequeue(nowNs: 8 * ms)
        #expect(padding?.kind == .padding)
        #expect(padding?.probeClusterID == 9)
    }

    @Test func aClusterThatFallsBehindIsDropped() {
        var pacer = Pacer(pacingRateBps: 1_000_000)
        pacer.addProbeCluster(cluster, nowNs: 0)
        enqueue(&pacer, count: 3, sizeBytes: 500)
        #expect(pacer.dequeue(nowNs: 0)?.probeClusterID == 9)
        // Due at 4 ms, handled at 30 ms: the timing would measure us, not the path.
        let late = pacer.dequeue(nowNs: 30 * ms)
        #expect(late != nil)
        #expect(late?.probeClusterID == nil)
    }

    @Test func aClusterNeverStartedExpires() {
        var pacer = Pacer(pacingRateBps: 1_000_000)
        pacer.addProbeCluster(cluster, nowNs: 0)
        let fresh = ProbeCluster(id: 10, bitrateBps: 1_000_000, minPackets: 5, minBytes: 1875, createdAtNs: 6000 * ms)
        pacer.addProbeCluster(fresh, nowNs: 6000 * ms)
        enqueue(&pacer, count: 1, sizeBytes: 500, atNs: 6000 * ms)
        #expect(pacer.dequeue(nowNs: 6000 * ms)?.probeClusterID == 10)
    }

    /// A sender that cannot pad (before the receiver's first feedback, say) says so: the probe
    /// waiting for padding is then not due, so the send loop sleeps instead of spinning, until
    /// the next packet is queued.
    @Test func aProbeThatCannotBePaddedWaitsForTheNextPacket() {
        var pacer = Pacer(pacingRateBps: 100_000)
        pacer.addProbeCluster(cluster, nowNs: 0)
        enqueue(&pacer, count: 1, sizeBytes: 1000)
        #expect(pacer.dequeue(nowNs: 0)?.probeClusterID == 9)
        #expect(pacer.nextSendTimeNs(nowNs: 8 * ms) == 8 * ms)
        #expect(pacer.paddingNeeded(nowNs: 8 * ms) > 0)
        pacer.paddingUnavailable()
        #expect(pacer.nextSendTimeNs(nowNs: 8 * ms) == nil)
        #expect(pacer.paddingNeeded(nowNs: 8 * ms) == 0)
        enqueue(&pacer, count: 1, sizeBytes: 1000, atNs: 9 * ms, firstHandle: 1)
        #expect(pacer.nextSendTimeNs(nowNs: 9 * ms) == 9 * ms)
        #expect(pacer.dequeue(nowNs: 9 * ms)?.probeClusterID == 9)
    }

    @Test func aProbeWaitsForMediaToPadBehind() {
        var pacer = Pacer(pacingRateBps: 1_000_000)
        pacer.addProbeCluster(cluster, nowNs: 0)
        #expect(pacer.nextSendTimeNs(nowNs: 0) == nil)
        #expect(pacer.paddingNeeded(nowNs: 0) == 0)
    }
}

@Suite struct PacerPaddingTests {
    @Test func padsUpToThePaddingRateWhenThereIsNoMedia() {
        var pacer = Pacer(pacingRateBps: 1_000_000, paddingRateBps: 400_000)
        #expect(pacer.paddingNeeded(nowNs: 0) == 0)  // Not before the first media packet.
        enqueue(&pacer, count: 1, sizeBytes: 1000)
        #expect(pacer.dequeue(nowNs: 0) != nil)
        // The media packet is paid at 1 Mbit/s after 8 ms, and as padding at 400 kbit/s after 20 ms.
        #expect(pacer.nextSendTimeNs(nowNs: 0) == 20 * ms)
        #expect(pacer.paddingNeeded(nowNs: 10 * ms) == 0)
        // 5 ms at 400 kbit/s.
        #expect(pacer.paddingNeeded(nowNs: 20 * ms) == 250)
        pacer.enqueue(1, sizeBytes: 250, kind: .padding, nowNs: 20 * ms)
        #expect(pacer.dequeue(nowNs: 20 * ms)?.kind == .padding)
        #expect(pacer.paddingNeeded(nowNs: 20 * ms) == 0)
        #expect(pacer.nextSendTimeNs(nowNs: 20 * ms) == 25 * ms)
    }

    @Test func noPaddingWhileMediaIsQueued() {
        var pacer = Pacer(pacingRateBps: 1_000_000, paddingRateBps: 400_000)
        enqueue(&pacer, count: 20)
        _ = pacer.dequeue(nowNs: 0)
        #expect(pacer.paddingNeeded(nowNs: 1000 * ms) == 0)
    }

    @Test func noPaddingIsDueWhenTheSenderHasNone() {
        var pacer = Pacer(pacingRateBps: 1_000_000, paddingRateBps: 400_000)
        enqueue(&pacer, count: 1, sizeBytes: 1000)
        #expect(pacer.dequeue(nowNs: 0) != nil)
        pacer.paddingUnavailable()
        #expect(pacer.nextSendTimeNs(nowNs: 20 * ms) == nil)
        enqueue(&pacer, count: 1, sizeBytes: 1000, atNs: 30 * ms, firstHandle: 1)
        #expect(pacer.dequeue(nowNs: 30 * ms) != nil)
        #expect(pacer.nextSendTimeNs(nowNs: 30 * ms) != nil, "a packet queued: padding may be asked for again")
    }

    @Test func thePaddingRateNeverExceedsThePacingRate() {
        let pacer = Pacer(pacingRateBps: 100_000, paddingRateBps: 400_000)
        #expect(pacer.paddingRateBps == 100_000)
    }
}

@Suite struct PacerProbeInputTests {
    @Test func ignoresAClusterWithoutARate() {
        var pacer = Pacer(pacingRateBps: 1_000_000)
        pacer.addProbeCluster(ProbeCluster(id: 1, bitrateBps: 0, minPackets: 5, minBytes: 0, createdAtNs: 0), nowNs: 0)
        enqueue(&pacer, count: 1)
        #expect(pacer.dequeue(nowNs: 0)?.probeClusterID == nil)
    }
}

@Suite struct PacerKeepAliveTests {
    @Test func whileCongestedOnePacketLeavesEveryHalfSecond() {
        var pacer = Pacer(pacingRateBps: 1_000_000)
        enqueue(&pacer, count: 1)
        #expect(pacer.dequeue(nowNs: 0) != nil)
        #expect(pacer.nextSendTimeNs(nowNs: 0) == nil, "nothing to do while not congested")
        pacer.isCongested = true
        #expect(pacer.nextSendTimeNs(nowNs: 100 * ms) == 500 * ms)
        #expect(!pacer.isKeepAliveDue(nowNs: 499 * ms))
        #expect(pacer.isKeepAliveDue(nowNs: 500 * ms))
        #expect(pacer.paddingNeeded(nowNs: 500 * ms) == 0, "a keep-alive is not padding up to a rate")
        pacer.enqueue(1, sizeBytes: 1000, kind: .padding, nowNs: 500 * ms)
        #expect(pacer.dequeue(nowNs: 500 * ms)?.kind == .padding)
        #expect(!pacer.isKeepAliveDue(nowNs: 500 * ms))
        #expect(pacer.nextSendTimeNs(nowNs: 500 * ms) == 1000 * ms)
        pacer.isCongested = false
        #expect(pacer.nextSendTimeNs(nowNs: 500 * ms) == nil)
        #expect(!pacer.isKeepAliveDue(nowNs: 5000 * ms))
    }

    @Test func queuedPacketsAreTheirOwnKeepAlive() {
        var pacer = Pacer(pacingRateBps: 1_000_000)
        pacer.isCongested = true
        #expect(pacer.nextSendTimeNs(nowNs: 0) == nil, "not before the first media packet")
        enqueue(&pacer, count: 100)
        _ = drain(&pacer, untilNs: 600 * ms)
        #expect(pacer.queuedPacketCount > 0)
        #expect(!pacer.isKeepAliveDue(nowNs: 2000 * ms))
    }

    @Test func keepAlivesGoWithPacingOffToo() {
        var pacer = Pacer(configuration: PacerConfiguration(isPacingEnabled: false), pacingRateBps: 1_000_000)
        enqueue(&pacer, count: 3)
        #expect(drain(&pacer).count == 3)
        pacer.isCongested = true
        #expect(pacer.nextSendTimeNs(nowNs: 10 * ms) == 500 * ms)
        #expect(pacer.isKeepAliveDue(nowNs: 500 * ms))
    }
}
