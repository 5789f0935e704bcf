import RTCP
import RTP
import RTPSession
import TestSupport

/// The receiving end, as GStreamer's rtpbin (and a browser) behaves towards a sender: it reads
/// the real packets the session wrote and answers with real RTCP.
///
/// - Transport-wide feedback every interval, arrival times on its own clock (offset from the
///   sender's, 250 µs resolution); receiver reports every second, echoing the last SR (LSR,
///   DLSR) with the loss since the previous report; REMB when the scenario has one.
/// - A packet missing from the sequence is NACKed 20 ms after the gap shows (GStreamer's auto
///   `rtx-delay`) and again every retry interval until it (or its RTX copy) arrives or the jitter
///   buffer's time for it is over; the interval is the round trip of repairs as measured
///   (first request to arrival, averaged 1/8), 40 ms before the first, as GStreamer's auto
///   `rtx-retry-timeout` is.
/// - A jitter buffer: a frame plays `jitterBufferNs` after its place in the stream's timeline
///   (the first packet's arrival plus its RTP time since). It is intact when all its packets
///   arrived by then and it is a keyframe or follows the last intact frame without a gap; a
///   broken frame brings a PLI, repeated every 300 ms until a keyframe plays.
/// - RED (RFC 2198) is unwrapped, and an ULPFEC packet (RFC 5109) rebuilds the one packet it
///   protects that is missing, as soon as the others are in; a rebuilt packet counts as arrived.
struct SimulatedReceiver {
    struct Configuration {
        var mediaSSRC: UInt32
        var rtxPayloadType: UInt8?
        var fec: FECPayloadTypes?
        var transportWideExtensionID: UInt8?
        var feedbackIntervalNs: Int64?
        var rembBps: Int64?
        var isNACKing: Bool
        /// A fixed retry interval, else the measured round trip of repairs.
        var nackRetryIntervalNs: Int64?
        var jitterBufferNs: Int64
        var pliFloodIntervalNs: Int64?
        var silenceNs: Range<Int64>?
    }

    /// A frame the receiver has heard of, by its RTP time.
    private struct Frame {
        var firstSequenceNumber: Int64?
        var lastSequenceNumber: Int64?
        var isKeyframe = false
        /// The VP8 PictureID, which counts encoded frames: a gap in it is a frame missing.
        var pictureID: UInt16?
        var playoutNs: Int64
    }

    static let ssrc: UInt32 = 0x5EC0_0001
    /// The receiver's clock runs this far from the sender's: only differences may matter.
    static let clockOffsetNs: Int64 = 12_345_678_901_234
    static let reportIntervalNs: Int64 = 1_000_000_000
    static let pictureLossRepeatNs: Int64 = 300_000_000
    static let nackDelayNs: Int64 = 20_000_000
    static let initialRepairRoundTripNs: Int64 = 40_000_000

    let configuration: Configuration
    private(set) var framesIntact = 0
    private(set) var framesBroken = 0
    private(set) var nacksSent = 0
    private(set) var plisSent = 0
    private(set) var packetsRecoveredByFEC = 0
    /// The arrival of each intact frame's completing packet, less its place in the timeline.
    private(set) var frameDelaysNs: [Int64] = []

    // Transport-wide feedback.
    private var transportArrivals: [(sequenceNumber: Int64, receiveTimeNs: Int64)] = []
    private var highestTransportReported: Int64?
    private var highestTransport: Int64 = -1
    private var feedbackCount: UInt8 = 0
    private var nextFeedbackNs: Int64?
    // The media stream.
    private var firstSequenceNumber: Int64?
    private var highestSequenceNumber: Int64 = -1
    /// When each media packet first arrived, for the frames still to play.
    private var arrivalsByPacket: [Int64: Int64] = [:]
    /// The media packets received, whole, and the FEC payloads still of use, for recovery.
    private var packetsBySequenceNumber: [Int64: [UInt8]] = [:]
    private var fecPayloads: [[UInt8]] = []
    private var receivedCount = 0
    private var missing: [Int64: (detectedNs: Int64, nextNACKNs: Int64, firstNACKNs: Int64?)] = [:]
    private var repairRoundTripNs: Int64?
    private var firstTimestamp: UInt32?
    private var timelineStartNs: Int64 = 0
    private var frames: [Int64: Frame] = [:]
    private var lastIntactPictureID: UInt16?
    private var awaitingKeyframe = false
    private var nextPictureLossNs: Int64?
    private var nextPLIFloodNs: Int64?
    // Reports.
    private var lastSenderReport: (middleBits: UInt32, arrivalNs: Int64)?
    private var nextReportNs: Int64 = Self.reportIntervalNs
    private var nextREMBNs: Int64?
    private var reportedExpected: Int64 = 0
    private var reportedReceived = 0

    init(configuration: Configuration) {
        self.configuration = configuration
        nextFeedbackNs = configuration.feedbackIntervalNs
        nextREMBNs = configuration.rembBps.map { _ in 0 }
        nextPLIFloodNs = configuration.pliFloodIntervalNs
    }

    /// When the receiver next has something to do.
    var nextEventNs: Int64 {
        var times = [nextReportNs]
        times += [nextFeedbackNs, nextREMBNs, nextPictureLossNs, nextPLIFloodNs].compactMap { $0 }
        times += missing.values.map(\.nextNACKNs)
        times += frames.values.map(\.playoutNs)
        return times.min() ?? .max
    }

    // MARK: Arrivals

    mutating func receive(_ packet: [UInt8], arrivalNs: Int64) {
        guard let (header, headerSize) = try? packet.withUnsafeBytes({ try RTPHeader.parse(prefixOf: $0) }) else { return }
        recordTransportArrival(header, arrivalNs: arrivalNs)
        if let fec = configuration.fec, header.payloadType == fec.red, header.ssrc == configuration.mediaSSRC {
            guard let red = try? REDHeader(parsing: Array(packet[headerSize...])), red.redundantBlocks.isEmpty else { return }
            var inner = Array(packet[..<headerSize]) + packet[(headerSize + REDHeader.primaryHeaderSize)...]
            inner[1] = packet[1] & 0x80 | red.primaryPayloadType
            if red.primaryPayloadType == fec.ulpfec {
                _ = noteArrival(of: header.sequenceNumber, arrivalNs: arrivalNs)
                fecPayloads.append(Array(inner[headerSize...]))
            } else {
                receivePacket(inner, header: header, headerSize: headerSize, arrivalNs: arrivalNs)
            }
        } else {
            receivePacket(packet, header: header, headerSize: headerSize, arrivalNs: arrivalNs)
        }
        if !fecPayloads.isEmpty { recoverWithFEC(arrivalNs: arrivalNs) }
    }

    private mutating func receivePacket(_ packet: [UInt8], header: RTPHeader, headerSize: Int, arrivalNs: Int64) {
        var media = packet
        var payloadStart = headerSize
        if header.payloadType == configuration.rtxPayloadType, header.ssrc != configuration.mediaSSRC {
            guard let original = try? packet.withUnsafeBytes({
                try RTXPacket.original(ofRetransmission: $0, ssrc: configuration.mediaSSRC, payloadType: 96)
            }) else { return }
            media = original.serialized()
            payloadStart = original.header.serializedSize
        } else if header.ssrc != configuration.mediaSSRC {
            return
        }
        let sequenceNumber = UInt16(media[2]) << 8 | UInt16(media[3])
        packetsBySequenceNumber[firstSequenceNumber == nil ? Int64(sequenceNumber) : Self.unwrap(sequenceNumber, near: highestSequenceNumber)] = media
        receiveMedia(
            sequenceNumber: sequenceNumber, timestamp: header.timestamp, marker: header.marker,
            payload: Array(media[payloadStart...]), arrivalNs: arrivalNs)
    }

    private mutating func recordTransportArrival(_ header: RTPHeader, arrivalNs: Int64) {
        if let id = configuration.transportWideExtensionID, let element = header.extensionElements.first(where: { $0.id == id }),
            let number = try? TransportWideSequenceNumber(element: element)
        {
            let unwrapped = Self.unwrap(number.value, near: highestTransport)
            highestTransport = max(highestTransport, unwrapped)
            transportArrivals.append((unwrapped, arrivalNs + Self.clockOffsetNs))
        }
    }

    /// Rebuilds every packet an FEC payload at hand can, until none can; forgets FEC with
    /// nothing left to rebuild.
    private mutating func recoverWithFEC(arrivalNs: Int64) {
        var recoveredAny = true
        while recoveredAny {
            recoveredAny = false
            for fec in fecPayloads {
                let highest = highestSequenceNumber
                let packets = packetsBySequenceNumber
                guard let recovered = ULPFECRecovery.recover(from: fec, ssrc: configuration.mediaSSRC, received: { number in
                    packets[Self.unwrap(number, near: highest)]
                }), let (header, headerSize) = try? recovered.withUnsafeBytes({ try RTPHeader.parse(prefixOf: $0) }) else { continue }
                packetsRecoveredByFEC += 1
                receivePacket(recovered, header: header, headerSize: headerSize, arrivalNs: arrivalNs)
                recoveredAny = true
            }
        }
        let oldest = highestSequenceNumber - 200
        fecPayloads.removeAll { fec in
            guard let header = try? ULPFECHeader(parsing: fec) else { return true }
            let protected = header.protectedSequenceNumbers.map { Self.unwrap($0, near: highestSequenceNumber) }
            return protected.allSatisfy { packetsBySequenceNumber[$0] != nil } || protected.allSatisfy { $0 < oldest }
        }
    }

    /// The sender's RTCP: the SR's NTP time is what a receiver report echoes.
    mutating func receiveReport(_ datagram: [UInt8], arrivalNs: Int64) {
        let parsed = datagram.withUnsafeBytes { RTCPCompoundPacket.parseValidPackets($0) }
        for case .senderReport(let report) in parsed.packets where report.ssrc == configuration.mediaSSRC {
            lastSenderReport = (report.ntpTimestamp.middle32Bits, arrivalNs)
        }
    }

    /// A packet of the media stream's sequence (media or FEC) arrived: gaps before it are NACKed,
    /// a repair that fills one is timed. Returns its extended number.
    private mutating func noteArrival(of value: UInt16, arrivalNs: Int64) -> Int64 {
        let sequenceNumber = firstSequenceNumber == nil ? Int64(value) : Self.unwrap(value, near: highestSequenceNumber)
        if firstSequenceNumber == nil {
            firstSequenceNumber = sequenceNumber
            highestSequenceNumber = sequenceNumber - 1
        }
        if sequenceNumber > highestSequenceNumber + 1, configuration.isNACKing {
            for lost in (highestSequenceNumber + 1)..<sequenceNumber { missing[lost] = (arrivalNs, arrivalNs + Self.nackDelayNs, nil) }
        }
        highestSequenceNumber = max(highestSequenceNumber, sequenceNumber)
        if let repaired = missing.removeValue(forKey: sequenceNumber), let askedNs = repaired.firstNACKNs {
            let sampleNs = arrivalNs - askedNs
            repairRoundTripNs = repairRoundTripNs.map { (sampleNs + 7 * $0) / 8 } ?? sampleNs
        }
        return sequenceNumber
    }

    private mutating func receiveMedia(
        sequenceNumber value: UInt16, timestamp: UInt32, marker: Bool, payload: [UInt8], arrivalNs: Int64
    ) {
        let sequenceNumber = noteArrival(of: value, arrivalNs: arrivalNs)
        guard arrivalsByPacket[sequenceNumber] == nil else { return }
        receivedCount += 1
        arrivalsByPacket[sequenceNumber] = arrivalNs
        if firstTimestamp == nil {
            firstTimestamp = timestamp
            timelineStartNs = arrivalNs
        }
        let time = Int64(Int32(bitPattern: timestamp &- (firstTimestamp ?? timestamp)))
        guard let descriptor = try? payload.withUnsafeBytes({ try VP8PayloadDescriptor(parsing: $0) }) else { return }
        let playoutNs = timelineStartNs + time * 1_000_000_000 / 90_000 + configuration.jitterBufferNs
        guard playoutNs > arrivalNs || frames[time] != nil else { return }  // Too late for its frame.
        var frame = frames[time] ?? Frame(playoutNs: playoutNs)
        if descriptor.isStartOfPartition && descriptor.partitionIndex == 0 {
            frame.firstSequenceNumber = sequenceNumber
            let tag = payload.count > descriptor.serializedSize ? payload[descriptor.serializedSize] : 1
            frame.isKeyframe = tag & 0x01 == 0
            frame.pictureID = descriptor.pictureID?.value
        }
        if marker { frame.lastSequenceNumber = sequenceNumber }
        frames[time] = frame
    }

    // MARK: Feedback

    /// Plays the frames due and returns the RTCP datagrams due at `nowNs`.
    mutating func takeFeedback(nowNs: Int64) -> [[UInt8]] {
        playFrames(nowNs: nowNs)
        var packets: [RTCPPacket] = []
        if let dueNs = nextFeedbackNs, dueNs <= nowNs, let interval = configuration.feedbackIntervalNs {
            nextFeedbackNs = dueNs + interval
            if let feedback = transportFeedback() { packets.append(.transportWideFeedback(feedback)) }
        }
        if nextReportNs <= nowNs {
            nextReportNs += Self.reportIntervalNs
            packets.append(.receiverReport(RTCPReceiverReport(ssrc: Self.ssrc, reportBlocks: [reportBlock(nowNs: nowNs)])))
        }
        if let dueNs = nextREMBNs, dueNs <= nowNs, let rembBps = configuration.rembBps {
            nextREMBNs = dueNs + Self.reportIntervalNs
            packets.append(.receiverEstimatedMaximumBitrate(
                RTCPReceiverEstimatedMaximumBitrate(senderSSRC: Self.ssrc, bitrateBps: UInt64(rembBps), ssrcs: [configuration.mediaSSRC])))
        }
        if let nack = takeNACK(nowNs: nowNs) { packets.append(.genericNACK(nack)) }
        if takePictureLoss(nowNs: nowNs) {
            plisSent += 1
            packets.append(.pictureLossIndication(RTCPPictureLossIndication(senderSSRC: Self.ssrc, mediaSSRC: configuration.mediaSSRC)))
        }
        if configuration.silenceNs?.contains(nowNs) ?? false { return [] }
        return packets.map { RTCPCompoundPacket(packets: [$0]).serialized() }
    }

    /// Every transport-wide number from the last one reported to the newest, lost ones without a time.
    private mutating func transportFeedback() -> RTCPTransportWideFeedback? {
        guard !transportArrivals.isEmpty else { return nil }
        let first = (highestTransportReported ?? transportArrivals[0].sequenceNumber - 1) + 1
        var times = [Int64?](repeating: nil, count: Int(highestTransport - first + 1))
        for arrival in transportArrivals where arrival.sequenceNumber >= first {
            times[Int(arrival.sequenceNumber - first)] = arrival.receiveTimeNs
        }
        transportArrivals.removeAll(keepingCapacity: true)
        highestTransportReported = highestTransport
        defer { feedbackCount &+= 1 }
        return try? RTCPTransportWideFeedback(
            senderSSRC: Self.ssrc, mediaSSRC: configuration.mediaSSRC, feedbackPacketCount: feedbackCount,
            packets: times.enumerated().map { index, time in
                .init(sequenceNumber: UInt16(truncatingIfNeeded: first + Int64(index)), receiveTimeUs: time.map { $0 / 1_000 })
            })
    }

    /// RFC 3550 §6.4.1: loss since the previous report and in all, the highest sequence number,
    /// and the echo of the last SR.
    private mutating func reportBlock(nowNs: Int64) -> RTCPReportBlock {
        let expected = firstSequenceNumber.map { highestSequenceNumber - $0 + 1 } ?? 0
        let expectedInterval = expected - reportedExpected
        let lostInterval = expectedInterval - Int64(receivedCount - reportedReceived)
        reportedExpected = expected
        reportedReceived = receivedCount
        let fraction = expectedInterval > 0 && lostInterval > 0 ? UInt8(min(255, lostInterval * 256 / expectedInterval)) : 0
        let lsr = lastSenderReport.map(\.middleBits) ?? 0
        let dlsr = lastSenderReport.map { UInt32((nowNs - $0.arrivalNs) * 65_536 / 1_000_000_000) } ?? 0
        return RTCPReportBlock(
            ssrc: configuration.mediaSSRC, fractionLost: fraction, cumulativeLost: Int32(expected) - Int32(receivedCount),
            extendedHighestSequenceNumber: UInt32(truncatingIfNeeded: highestSequenceNumber), interarrivalJitter: 0,
            lastSenderReport: lsr, delaySinceLastSenderReport: dlsr)
    }

    private mutating func takeNACK(nowNs: Int64) -> RTCPGenericNACK? {
        var lost: [Int64] = []
        for (sequenceNumber, state) in missing {
            if nowNs - state.detectedNs > configuration.jitterBufferNs {
                missing[sequenceNumber] = nil  // Its frame has played without it.
            } else if state.nextNACKNs <= nowNs {
                lost.append(sequenceNumber)
                let retryNs = configuration.nackRetryIntervalNs ?? repairRoundTripNs ?? Self.initialRepairRoundTripNs
                missing[sequenceNumber] = (state.detectedNs, nowNs + retryNs, state.firstNACKNs ?? nowNs)
            }
        }
        guard !lost.isEmpty else { return nil }
        nacksSent += 1
        return RTCPGenericNACK(
            senderSSRC: Self.ssrc, mediaSSRC: configuration.mediaSSRC,
            lostSequenceNumbers: lost.sorted().map { UInt16(truncatingIfNeeded: $0) })
    }

    private mutating func takePictureLoss(nowNs: Int64) -> Bool {
        if let dueNs = nextPLIFloodNs, dueNs <= nowNs, let interval = configuration.pliFloodIntervalNs {
            nextPLIFloodNs = dueNs + interval
            return true
        }
        guard awaitingKeyframe, let dueNs = nextPictureLossNs, dueNs <= nowNs else { return false }
        nextPictureLossNs = nowNs + Self.pictureLossRepeatNs
        return true
    }

    // MARK: Playout

    /// Plays every frame whose time has come, in stream order.
    private mutating func playFrames(nowNs: Int64) {
        guard frames.values.contains(where: { $0.playoutNs <= nowNs }) else { return }
        for time in frames.keys.sorted() {
            guard let frame = frames[time], frame.playoutNs <= nowNs else { break }
            frames[time] = nil
            if isIntact(frame) {
                framesIntact += 1
                awaitingKeyframe = false
                nextPictureLossNs = nil
                lastIntactPictureID = frame.pictureID
                let completedNs = (frame.firstSequenceNumber!...frame.lastSequenceNumber!).compactMap { arrivalsByPacket[$0] }.max() ?? nowNs
                frameDelaysNs.append(completedNs - (frame.playoutNs - configuration.jitterBufferNs))
            } else {
                framesBroken += 1
                if !awaitingKeyframe {
                    awaitingKeyframe = true
                    nextPictureLossNs = nowNs
                }
            }
        }
        // What a played frame's packets were no longer matters, beyond a margin for late ones.
        arrivalsByPacket = arrivalsByPacket.filter { $0.key > highestSequenceNumber - 2_000 }
        packetsBySequenceNumber = packetsBySequenceNumber.filter { $0.key > highestSequenceNumber - 300 }
    }

    /// Complete, and decodable: a keyframe, or the frame right after the last intact one by its
    /// PictureID, as libwebrtc's VP8 reference finder judges it (FEC packets between frames take
    /// sequence numbers, so the sequence cannot tell).
    private func isIntact(_ frame: Frame) -> Bool {
        guard let first = frame.firstSequenceNumber, let last = frame.lastSequenceNumber, first <= last,
            (first...last).allSatisfy({ arrivalsByPacket[$0].map { $0 <= frame.playoutNs } ?? false })
        else { return false }
        guard !frame.isKeyframe else { return true }
        guard !awaitingKeyframe, let lastIntact = lastIntactPictureID, let pictureID = frame.pictureID else { return false }
        return pictureID == (lastIntact + 1) & 0x7FFF
    }

    /// The value of a 16-bit counter nearest `reference`.
    private static func unwrap(_ value: UInt16, near reference: Int64) -> Int64 {
        let referenceLow = UInt16(truncatingIfNeeded: max(reference, 0))
        return max(reference, 0) + Int64(Int16(bitPattern: value &- referenceLow))
    }
}
