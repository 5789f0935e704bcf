import CongestionControl
import MediaCore
import RTCP
import RTP
import Transport

extension SendLoop {
    /// Reads every feedback datagram waiting where `token` (a socket) or a wake-up (a transport's
    /// queue) says, and acts on the RTCP in it. Datagrams from other addresses were already
    /// counted and dropped by the pathway; here the rate limit, SRTCP and the parser may still
    /// refuse one, which counts as rejected.
    func readFeedback(token: Int?) {
        while let length = pathway.nextFeedback(into: receiveBuffer, token: token) {
            let nowNs = MonotonicClock.nowNs()
            guard feedbackLimiter.admit(nowNs: nowNs), let plainLength = unprotectedFeedback(length: length) else {
                statistics.rtcpReceived.rejected += 1
                continue
            }
            let parsed = RTCPCompoundPacket.parseValidPackets(UnsafeRawBufferPointer(rebasing: receiveBuffer[0..<plainLength]))
            statistics.rtcpReceived.rejected += parsed.rejections.count
            for packet in parsed.packets { handle(packet, nowNs: nowNs) }
        }
    }

    /// The length of the plain RTCP in `receiveBuffer`, or nil when the datagram is refused: it
    /// is not RTCP (RFC 5761 §4: payload types 192–223 on a multiplexed port), or it fails SRTCP
    /// authentication and plain feedback is not accepted.
    private func unprotectedFeedback(length: Int) -> Int? {
        guard length >= 8, (192...223).contains(receiveBuffer[1]) else { return nil }
        guard let feedbackProtection else { return length }
        if let plainLength = try? feedbackProtection.unprotectRTCP(receiveBuffer, length: length) { return plainLength }
        // A peer that sends plain RTCP on an SRTP session (Janus) is heard only when allowed; the
        // SRTCP check failed before libsrtp2 touched the bytes.
        return configuration.acceptsPlainRTCP ? length : nil
    }

    private func handle(_ packet: RTCPPacket, nowNs: Int64) {
        let ssrc = stream.ssrc
        switch packet {
        case .receiverReport(let report):
            statistics.rtcpReceived.rr += 1
            handle(report.reportBlocks, from: report.ssrc, nowNs: nowNs)
        case .senderReport(let report):
            statistics.rtcpReceived.sr += 1
            handle(report.reportBlocks, from: report.ssrc, nowNs: nowNs)
        case .genericNACK(let nack):
            statistics.rtcpReceived.nack += 1
            if nack.mediaSSRC == ssrc { retransmit(nack.lostSequenceNumbers, nowNs: nowNs) }
        case .pictureLossIndication(let pli):
            statistics.rtcpReceived.pli += 1
            if pli.mediaSSRC == ssrc {
                respond(to: keyframes.onPictureLoss(nowNs: nowNs, roundTripTimeNs: currentRoundTripTimeNs), source: .pli)
            }
        case .fullIntraRequest(let fir):
            statistics.rtcpReceived.fir += 1
            for entry in fir.entries where entry.ssrc == ssrc {
                let outcome = keyframes.onFullIntraRequest(
                    requester: fir.senderSSRC, sequenceNumber: entry.sequenceNumber, nowNs: nowNs,
                    roundTripTimeNs: currentRoundTripTimeNs)
                respond(to: outcome, source: .fir)
            }
        case .receiverEstimatedMaximumBitrate(let remb):
            statistics.rtcpReceived.remb += 1
            if remb.ssrcs.isEmpty || remb.ssrcs.contains(ssrc) {
                apply(congestion.onReceiverEstimatedMaximumBitrate(Int64(clamping: remb.bitrateBps), nowNs: nowNs), nowNs: nowNs)
            }
        case .transportWideFeedback(let feedback):
            statistics.rtcpReceived.twcc += 1
            if feedback.mediaSSRC == ssrc || feedback.mediaSSRC == 0 { handle(feedback, nowNs: nowNs) }
        case .sourceDescription, .bye, .applicationDefined, .other:
            statistics.rtcpReceived.other += 1
        }
    }

    /// Report blocks about our stream: RTT from LSR/DLSR, loss for the controller and the stats.
    private func handle(_ blocks: [RTCPReportBlock], from reporter: UInt32, nowNs: Int64) {
        for block in blocks where block.ssrc == stream.ssrc {
            statistics.receiverFractionLost = Double(block.fractionLost) / 256
            if let rttNs = roundTripTime.onReportBlock(
                lastSenderReport: block.lastSenderReport, delaySinceLastSenderReport: block.delaySinceLastSenderReport,
                arrivalNs: nowNs)
            {
                apply(congestion.onRoundTripTime(rttNs, nowNs: nowNs), nowNs: nowNs)
            }
            if let loss = lossReports.update(reporter: reporter, block: block) {
                apply(congestion.onReceiverReportLoss(lostPackets: loss.lost, expectedPackets: loss.expected, nowNs: nowNs), nowNs: nowNs)
            }
        }
    }

    /// Queues what a NACK asks for, ahead of new media, as far as the policy allows.
    private func retransmit(_ sequenceNumbers: [UInt16], nowNs: Int64) {
        guard configuration.retransmission != .off else {
            statistics.nackedPackets += sequenceNumbers.count
            return
        }
        for sequenceNumber in sequenceNumbers {
            statistics.nackedPackets += 1
            let decision = nack.decide(
                sequenceNumber: sequenceNumber, nowNs: nowNs, roundTripTimeNs: currentRoundTripTimeNs,
                targetBitrateBps: congestion.estimate.targetBitrateBps, extraBytes: configuration.retransmissionOverhead + configuration.srtpOverhead,
                history: history, store: store)
            switch decision {
            case .resend(let slot):
                store[slot].queuedCopies += 1
                let size = store[slot].length + configuration.srtpOverhead + configuration.retransmissionOverhead
                pacer.enqueue(slot, sizeBytes: size, kind: .retransmission, nowNs: nowNs)
            case .notInHistory:
                statistics.nackedPacketsMissing += 1
            case .tooSoon, .overBudget:
                break
            }
        }
    }

    private func respond(to outcome: KeyframeRequestPolicy.Outcome, source: KeyframeRequestSource) {
        guard outcome == .forward else { return }
        forwardKeyframeRequest(source: source)
    }

    /// Asks the encoder for a keyframe and says so.
    func forwardKeyframeRequest(source: KeyframeRequestSource = .pli) {
        statistics.keyframesOnRequest += 1
        encoder.requestKeyframe()
        reporter.report(.keyframeRequested(source))
    }

    /// Transport-wide feedback: arrival times for the congestion controller.
    private func handle(_ feedback: RTCPTransportWideFeedback, nowNs: Int64) {
        guard configuration.extensions.transportWideSequenceNumber != nil else { return }
        var reports: [TransportFeedback.PacketReport] = []
        reports.reserveCapacity(feedback.packetStatusCount)
        for result in feedback.packetResults {
            let sequenceNumber = transportSequenceNumbers.unwrap(result.sequenceNumber, newestSent: nextTransportSequenceNumber - 1)
            reports.append(.init(sequenceNumber: sequenceNumber, receiveTimeNs: result.receiveTimeUs.map { $0 * 1_000 }))
        }
        statistics.twccFeedbackReceived += 1
        hasTransportFeedback = true
        apply(congestion.onTransportFeedback(TransportFeedback(feedbackTimeNs: nowNs, packets: reports)), nowNs: nowNs)
    }

    /// Applies the controller's rates: the pacer's pace, the encoder's target, probe clusters,
    /// the statistics; and pushback when the window is full.
    func apply(_ update: NetworkControlUpdate, nowNs: Int64) {
        if let estimate = update.estimate {
            pacer.setRates(pacingRateBps: estimate.pacingRateBps, paddingRateBps: estimate.paddingRateBps, nowNs: nowNs)
            let kbps = Int((estimate.encoderBitrateBps + 500) / 1000)
            encoder.setTargetBitrate(kbps: max(1, kbps))
            statistics.targetBitrateKbps.record(Double(estimate.targetBitrateBps) / 1000)
        }
        if configuration.extensions.transportWideSequenceNumber != nil {
            for cluster in update.probeClusters { pacer.addProbeCluster(cluster, nowNs: nowNs) }
        }
        if let trace = update.trace { traceSink?(trace) }
        updateCongestionState()
    }
}

/// Extends 16-bit transport-wide sequence numbers from feedback to the sender's 64-bit count:
/// the value nearest the newest number sent.
struct TransportSequenceNumberUnwrapper {
    func unwrap(_ value: UInt16, newestSent: Int64) -> Int64 {
        let newestLow = UInt16(truncatingIfNeeded: newestSent)
        let behind = Int64(Int16(bitPattern: newestLow &- value))
        return newestSent - behind
    }
}

/// Loss between consecutive receiver reports from each reporter (RFC 3550 §6.4.1): the growth
/// of the extended highest sequence number and of the cumulative lost count.
struct ReceiverLossTracker {
    static let maximumReporters = 16

    private var previous: [(reporter: UInt32, highest: UInt32, lost: Int32)] = []

    mutating func update(reporter: UInt32, block: RTCPReportBlock) -> (lost: Int, expected: Int)? {
        defer {
            if let index = previous.firstIndex(where: { $0.reporter == reporter }) {
                previous[index] = (reporter, block.extendedHighestSequenceNumber, block.cumulativeLost)
            } else {
                if previous.count == Self.maximumReporters { previous.removeFirst() }
                previous.append((reporter, block.extendedHighestSequenceNumber, block.cumulativeLost))
            }
        }
        guard let last = previous.first(where: { $0.reporter == reporter }) else { return nil }
        let expected = Int(Int64(block.extendedHighestSequenceNumber) - Int64(last.highest))
        guard expected > 0 else { return nil }
        let lost = max(0, min(expected, Int(block.cumulativeLost) - Int(last.lost)))
        return (lost, expected)
    }
}
