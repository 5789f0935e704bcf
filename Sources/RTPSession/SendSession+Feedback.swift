import CongestionControl
import MediaCore
import RTCP

extension SendSession {
    /// Acts on a feedback datagram (plain RTCP, compound or reduced-size) that arrived at
    /// `nowNs`: packets that do not parse, and datagrams that are not RTCP at all, count as
    /// rejected; feedback about SSRCs that are not ours changes nothing.
    public func receiveRTCP(_ datagram: UnsafeRawBufferPointer, nowNs: Int64) {
        let parsed = RTCPCompoundPacket.parseValidPackets(datagram)
        statistics.rtcpReceived.rejected += parsed.rejections.count
        for packet in parsed.packets { handle(packet, nowNs: nowNs) }
    }

    private func handle(_ packet: RTCPPacket, nowNs: Int64) {
        switch packet {
        case .receiverReport(let report):
            statistics.rtcpReceived.rr += 1
            handle(report.reportBlocks, from: report.ssrc, nowNs: nowNs)
        case .senderReport(let report):
            statistics.rtcpReceived.sr += 1
            handle(report.reportBlocks, from: report.ssrc, nowNs: nowNs)
        case .genericNACK(let nack):
            statistics.rtcpReceived.nack += 1
            if let index = encodingIndex(ofMedia: nack.mediaSSRC) {
                retransmit(nack.lostSequenceNumbers, encodingIndex: index, nowNs: nowNs)
            }
        case .pictureLossIndication(let pli):
            statistics.rtcpReceived.pli += 1
            if let index = encodingIndex(ofMedia: pli.mediaSSRC) {
                let outcome = encodings[index].keyframes.onPictureLoss(nowNs: nowNs, roundTripTimeNs: currentRoundTripTimeNs)
                if outcome == .forward { forwardKeyframeRequest(encodingIndex: index, source: .pli) }
            }
        case .fullIntraRequest(let fir):
            statistics.rtcpReceived.fir += 1
            for entry in fir.entries {
                guard let index = encodingIndex(ofMedia: entry.ssrc) else { continue }
                let outcome = encodings[index].keyframes.onFullIntraRequest(
                    requester: fir.senderSSRC, sequenceNumber: entry.sequenceNumber, nowNs: nowNs,
                    roundTripTimeNs: currentRoundTripTimeNs)
                if outcome == .forward { forwardKeyframeRequest(encodingIndex: index, source: .fir) }
            }
        case .receiverEstimatedMaximumBitrate(let remb):
            statistics.rtcpReceived.remb += 1
            if remb.ssrcs.isEmpty || remb.ssrcs.contains(where: { encodingIndex(ofMedia: $0) != nil }) {
                apply(congestion.onReceiverEstimatedMaximumBitrate(Int64(clamping: remb.bitrateBps), nowNs: nowNs), nowNs: nowNs)
            }
        case .transportWideFeedback(let feedback):
            statistics.rtcpReceived.twcc += 1
            if feedback.mediaSSRC == 0 || encodings.contains(where: { $0.owns(ssrc: feedback.mediaSSRC) }) {
                handle(feedback, nowNs: nowNs)
            }
        case .extendedReport(let report):
            statistics.rtcpReceived.other += 1
            for case .receiverReferenceTime(let time) in report.blocks {
                receiverReferenceTimes.received(time, from: report.ssrc, arrivalNs: nowNs)
            }
        case .sourceDescription, .bye, .applicationDefined, .other:
            statistics.rtcpReceived.other += 1
        }
    }

    /// The encoding whose media stream has `ssrc`.
    private func encodingIndex(ofMedia ssrc: UInt32) -> Int? {
        encodings.firstIndex { $0.ssrc == ssrc }
    }

    /// Report blocks about our streams: RTT from LSR/DLSR, loss for the controller (summed over
    /// the streams the report covers) and the stats.
    private func handle(_ blocks: [RTCPReportBlock], from reporter: UInt32, nowNs: Int64) {
        var lost = 0
        var expected = 0
        for block in blocks where encodingIndex(ofMedia: block.ssrc) != nil {
            statistics.receiverFractionLost = Double(block.fractionLost) / 256
            if let rttNs = roundTripTime.onReportBlock(
                lastSenderReport: block.lastSenderReport, delaySinceLastSenderReport: block.delaySinceLastSenderReport,
                arrivalNs: nowNs)
            {
                apply(congestion.onRoundTripTime(rttNs, nowNs: nowNs), nowNs: nowNs)
            }
            if let loss = lossReports.update(reporter: reporter, block: block) {
                lost += loss.lost
                expected += loss.expected
            }
        }
        if expected > 0 {
            apply(congestion.onReceiverReportLoss(lostPackets: lost, expectedPackets: expected, nowNs: nowNs), nowNs: nowNs)
        }
    }

    /// Queues what a NACK asks for, ahead of new media, as far as the policy allows.
    private func retransmit(_ sequenceNumbers: [UInt16], encodingIndex: Int, nowNs: Int64) {
        statistics.nackedPackets += sequenceNumbers.count
        guard configuration.tuning.retransmission != .off else { return }
        for sequenceNumber in sequenceNumbers {
            let decision = nack.decide(
                sequenceNumber: sequenceNumber, nowNs: nowNs, roundTripTimeNs: currentRoundTripTimeNs,
                targetBitrateBps: congestion.estimate.targetBitrateBps,
                extraBytes: configuration.retransmissionOverhead + protectionOverhead,
                history: encodings[encodingIndex].history, store: store)
            switch decision {
            case .resend(let slot):
                store[slot].lastAnsweredRequestNs = nowNs
                enqueue(slot, kind: .retransmission, nowNs: nowNs)
            case .notInHistory:
                statistics.nackedPacketsMissing += 1
            case .fecPacket, .tooSoon, .overBudget:
                break
            }
        }
    }

    /// Transport-wide feedback: arrival times for the congestion controller.
    private func handle(_ feedback: RTCPTransportWideFeedback, nowNs: Int64) {
        guard configuration.extensions.transportWideSequenceNumber != nil else { return }
        var reports: [TransportFeedback.PacketReport] = []
        reports.reserveCapacity(feedback.packetStatusCount)
        let newestSent = nextTransportSequenceNumber - 1
        for result in feedback.packetResults {
            let sequenceNumber = TransportSequenceNumberUnwrapper().unwrap(result.sequenceNumber, newestSent: newestSent)
            reports.append(.init(sequenceNumber: sequenceNumber, receiveTimeNs: result.receiveTimeUs.map { $0 * 1_000 }))
        }
        statistics.twccFeedbackReceived += 1
        hasTransportFeedback = true
        judgePaddingProbe(reports, nowNs: nowNs)
        apply(congestion.onTransportFeedback(TransportFeedback(feedbackTimeNs: nowNs, packets: reports)), nowNs: nowNs)
    }
}
