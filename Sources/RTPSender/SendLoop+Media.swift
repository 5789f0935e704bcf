import CongestionControl
import MediaCore
import RTP
import Transport

extension SendLoop {
    /// Packetizes every frame the encoder queued into the store and hands the packets to the pacer.
    func takeFrames(nowNs: Int64) {
        while let frame = frames.pop() {
            do {
                try packetize(frame, nowNs: nowNs)
            } catch {
                logger.info("frame not sent: \(error)")
            }
        }
    }

    private func packetize(_ frame: EncodedFrame, nowNs: Int64) throws(VP8PayloaderError) {
        let (split, orientation) = try packetizer.plan(frame)
        guard store.canStore(split.packetCount) else {
            // Only a path that has stalled for seconds fills the store; the frame is lost like
            // one dropped by the network, and the receiver's PLI will bring a keyframe.
            logger.info("packet store full: a frame of \(split.packetCount) packets is not sent")
            return
        }
        if frame.isKeyframe { keyframes.keyframeSent(atNs: nowNs) }
        if nextControllerTickNs == nil {
            // Before the first packets are queued, so that the start-up probes can use them.
            nextControllerTickNs = nowNs
            apply(congestion.start(nowNs: nowNs), nowNs: nowNs)
        }
        packetizer.write(frame, split: split, orientation: orientation, into: store) { slot in
            store[slot].queuedCopies = 1
            pacer.enqueue(slot, sizeBytes: store[slot].length + configuration.srtpOverhead, kind: .media, nowNs: nowNs)
        }
        reportSchedule.mediaStarted(atNs: nowNs)
    }

    /// Sends what the pacer releases now, in batches of one `sendmmsg` each, and accounts for it.
    func sendDuePackets(nowNs: Int64) throws(SRTPError) {
        while pacer.nextSendTimeNs(nowNs: nowNs).map({ $0 <= nowNs }) ?? false {
            addPaddingIfNeeded(nowNs: nowNs)
            batch.removeAll()
            outgoing.removeAll(keepingCapacity: true)
            while outgoing.count < 64, let paced = pacer.dequeue(nowNs: nowNs) {
                try prepare(slot: paced.handle, kind: paced.kind, probeClusterID: paced.probeClusterID, nowNs: nowNs)
                pacerQueueTimes.record(nanoseconds: nowNs - paced.enqueueTimeNs)
            }
            guard !outgoing.isEmpty else { break }
            let sentCount = pathway.sendMedia(batch)
            account(sentCount: sentCount, sentNs: MonotonicClock.nowNs())
        }
        updateCongestionState()
    }

    /// Writes the copy of `slot` that goes out now into the batch: the media packet itself, or a
    /// retransmission of it (the same bytes again, or RTX); stamped and protected.
    private func prepare(slot: Int, kind: PacketKind, probeClusterID: Int?, nowNs: Int64) throws(SRTPError) {
        store[slot].queuedCopies -= 1
        let entry = store[slot]
        let original = store.packet(slot)
        var packet: UnsafeMutableRawBufferPointer = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        let sendsRTX: (payloadType: UInt8, ssrc: UInt32)? = if kind != .media, case .rtx(let payloadType, let ssrc) = configuration.retransmission {
            (payloadType, ssrc)
        } else {
            nil
        }
        batch.append { (buffer: UnsafeMutableRawBufferPointer) -> Int in
            let length: Int
            if let sendsRTX {
                do throws(WireFormatError) {
                    length = try RTXPacket.write(
                        retransmitting: original, ssrc: sendsRTX.ssrc, payloadType: sendsRTX.payloadType,
                        sequenceNumber: nextRetransmissionSequenceNumber, into: buffer)
                } catch {
                    preconditionFailure("stored packets are whole RTP packets with room for RTX: \(error)")
                }
                nextRetransmissionSequenceNumber &+= 1
            } else {
                UnsafeMutableRawBufferPointer(rebasing: buffer[0..<original.count]).copyMemory(from: original)
                length = original.count
            }
            packet = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<length])
            return length
        }
        let index = batch.count - 1
        if let offset = entry.absoluteSendTimeOffset {
            AbsoluteSendTime(timeNs: nowNs).patch(packet, atByteOffset: offset)
        }
        let transportSequenceNumber = nextTransportSequenceNumber
        nextTransportSequenceNumber += 1
        if let offset = entry.transportSequenceNumberOffset {
            TransportWideSequenceNumber(value: UInt16(truncatingIfNeeded: transportSequenceNumber)).patch(packet, atByteOffset: offset)
        }
        if let protection {
            batch.setLength(try protection.protectRTP(batch.slot(at: index), length: packet.count), at: index)
        }
        outgoing.append(OutgoingPacket(
            slot: slot, kind: kind, transportSequenceNumber: transportSequenceNumber, probeClusterID: probeClusterID,
            wireBytes: batch.length(at: index)))
    }

    /// After a batch left: the history, the congestion controller, the SR counts and the reports
    /// to the pipeline learn what went. Packets the socket had to drop count as sent and lost.
    private func account(sentCount: Int, sentNs: Int64) {
        var overheadPackets = 0
        var overheadBytes = 0
        for packet in outgoing {
            let slot = packet.slot
            if store[slot].firstSentNs == nil {
                store[slot].firstSentNs = sentNs
                history.append(slot, store: store)
            }
            store[slot].lastSentNs = sentNs
            store[slot].timesSent += 1
            congestion.onPacketSent(SentPacket(
                sequenceNumber: packet.transportSequenceNumber, sendTimeNs: sentNs, sizeBytes: packet.wireBytes,
                kind: packet.kind, probeClusterID: packet.probeClusterID))
            if packet.probeClusterID != nil { statistics.probesSent += 1 }
            let entry = store[slot]
            switch packet.kind {
            case .media:
                senderPacketCount += 1
                senderOctetCount += entry.length - entry.headerLength
                currentFrame.packets += 1
                currentFrame.bytes += packet.wireBytes
                lastMediaSentNs = sentNs
                if entry.endsFrame {
                    reporter.report(.frameDelivered(
                        timestampNs: entry.captureTimeNs, packets: currentFrame.packets, bytes: currentFrame.bytes,
                        deliveredNs: sentNs))
                    currentFrame = FrameProgress()
                }
            case .retransmission, .padding:
                if packet.kind == .retransmission {
                    statistics.packetsRetransmitted += 1
                    statistics.bytesRetransmitted += packet.wireBytes
                }
                if !configuration.retransmission.usesRTX {  // The copy went on the media SSRC.
                    senderPacketCount += 1
                    senderOctetCount += entry.length - entry.headerLength
                }
                overheadPackets += 1
                overheadBytes += packet.wireBytes
            }
            store.releaseIfUnused(slot)
        }
        if overheadPackets > 0 { reporter.report(.overheadSent(packets: overheadPackets, bytes: overheadBytes)) }
        if sentCount < outgoing.count {
            logger.debug("socket dropped \(outgoing.count - sentCount) of \(outgoing.count) packets")
        }
    }

    /// Probing, padding and keep-alives: the pacer asks for bytes when the controller wants more
    /// data on the wire than the encoder gives, and for one packet every 500 ms while the
    /// encoder is paused for congestion. They are made of real media, the newest packets in the
    /// history sent again, which every receiver treats as duplicates (RTX with `--retransmit rtx`).
    /// With `--retransmit off` only the keep-alive goes: without it a paused encoder whose last
    /// packets were lost would wait for feedback for ever. Nothing goes before the receiver has
    /// sent transport feedback: one that does not (ffmpeg) would take the copies for new
    /// packets. The start-up probes use the first keyframe's packets instead.
    private func addPaddingIfNeeded(nowNs: Int64) {
        guard hasTransportFeedback else { return }
        var needed = configuration.retransmission == .off ? 0 : pacer.paddingNeeded(nowNs: nowNs)
        if needed == 0 && pacer.isKeepAliveDue(nowNs: nowNs) {
            needed = 1
        }
        guard needed > 0 else { return }
        for slot in history.newest(8) where needed > 0 {
            store[slot].queuedCopies += 1
            let size = store[slot].length + configuration.srtpOverhead + configuration.retransmissionOverhead
            pacer.enqueue(slot, sizeBytes: size, kind: .padding, nowNs: nowNs)
            needed -= size
        }
    }

    /// Frames are dropped before encoding while more than the congestion window is in flight.
    func updateCongestionState() {
        let estimate = congestion.estimate
        let congested = estimate.congestionWindowBytes.map { estimate.bytesInFlight + pacer.queuedBytes > $0 } ?? false
        guard congested != pacer.isCongested else { return }
        pacer.isCongested = congested
        encoder.setNetworkCongested(congested)
    }
}
