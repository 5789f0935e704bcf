import MediaCore
import RTCP
import RTP

/// Turns encoded frames into RTP packets in the packet store: the stream writes each header
/// (sequence number, timestamp, marker, extensions), the VP8 payloader the descriptor and data
/// after it. Every packet fits the MTU with room left for the SRTP tag and, with RTX, the
/// original sequence number a retransmission adds.
struct FramePacketizer {
    /// How one frame will go: its payloads, the orientation its last packet carries and the
    /// capture time its first packet carries (nil: none).
    struct FramePlan {
        var split: VP8FrameSplit
        var orientation: VideoRotation?
        var captureTime: AbsoluteCaptureTime?
    }

    let encodingIndex: Int
    private(set) var stream: RTPStream
    private var payloader: VP8Payloader
    private var lastRotation: VideoRotation?
    private var captureTimes: AbsoluteCaptureTimeSchedule
    /// Room for header and payload in every packet.
    private let packetCapacity: Int

    /// For encoding `encodingIndex` of a validated configuration; capture times go on
    /// `ntpClock`, the clock of the session's sender reports.
    init(
        encodingIndex: Int, configuration: SendSessionConfiguration, protectionOverhead: Int, ntpClock: NTPClock
    ) throws(SendSessionError) {
        self.encodingIndex = encodingIndex
        let parameters = configuration.encodings[encodingIndex].media
        stream = try RTPStream(
            parameters: parameters, payloadType: configuration.payloadType, extensions: configuration.extensions,
            playoutDelay: configuration.tuning.playoutDelay, mid: configuration.mid, rid: configuration.encodings[encodingIndex].rid)
        payloader = VP8Payloader(initialPictureID: parameters.initialPictureID, initialTL0PictureIndex: parameters.initialTL0PictureIndex)
        captureTimes = AbsoluteCaptureTimeSchedule(ntpClock: ntpClock)
        packetCapacity = configuration.tuning.mtu - protectionOverhead - configuration.retransmissionOverhead
            - configuration.fecOverhead(headerSize: stream.headerSize + stream.largestExtraHeaderSize)
    }

    /// The packets `frame` will take, packetized at `nowNs`. A frame whose first packet carries
    /// the capture time is split as if every packet had that much less room, which costs a
    /// packet now and then on the few frames that carry it and keeps the split even.
    mutating func plan(_ frame: EncodedFrame, nowNs: Int64) throws(VP8PayloaderError) -> FramePlan {
        let orientation = stream.sendsOrientation(frame.rotation, previous: lastRotation, isKeyframe: frame.isKeyframe)
            ? frame.rotation : nil
        lastRotation = frame.rotation
        let captureTime = stream.sendsCaptureTime
            ? captureTimes.value(
                captureTimeNs: frame.timestampNs, rtpTimestamp: stream.clock.rtpTimestamp(forNs: frame.timestampNs),
                clockRate: stream.clock.clockRate, isKeyframe: frame.isKeyframe, nowNs: nowNs)
            : nil
        let firstPacketExtra = stream.extraHeaderSize(captureTime: captureTime != nil, orientation: false)
        let onePacketExtra = stream.extraHeaderSize(captureTime: captureTime != nil, orientation: orientation != nil)
        let temporalLayer = frame.temporalLayer.map {
            VP8PayloadDescriptor.TemporalLayer(index: UInt8(truncatingIfNeeded: $0.index), isLayerSync: $0.isLayerSync)
        }
        let split = try payloader.split(
            frameSize: frame.data.count, isDroppable: frame.isDroppable, temporalLayer: temporalLayer,
            payloadCapacity: packetCapacity - stream.headerSize - firstPacketExtra,
            lastPacketReduction: onePacketExtra - firstPacketExtra)
        return FramePlan(split: split, orientation: orientation, captureTime: captureTime)
    }

    /// Writes `count` ULPFEC packets (RFC 5109) on the stream, after the packets they protect:
    /// `group`, media packets in sequence order within 48, interleaved so that FEC packet j
    /// protects every `count`-th one from j, and a burst of losses falls into different packets'
    /// care. The store must hold them; each slot goes to `packetWritten`, in order.
    mutating func writeFEC(
        count: Int, protecting group: [Int], timestampNs: Int64, payloadType: UInt8, into store: PacketStore,
        packetWritten: (Int) -> Void
    ) {
        for first in 0..<min(count, group.count) {
            guard let slot = store.allocate() else { preconditionFailure("the store was checked for room first") }
            let buffer = store.buffer(slot)
            let header = stream.writeHeader(timestampNs: timestampNs, marker: false, orientation: nil, payloadType: payloadType, into: buffer)
            let protectedCount = (group.count - first + count - 1) / count
            let fecLength: Int
            let bodyOffset: Int
            do throws(WireFormatError) {
                let fec = UnsafeMutableRawBufferPointer(rebasing: buffer[header.length...])
                fecLength = try ULPFECEncoder.write(
                    protecting: protectedCount, packet: { store.packet(group[first + $0 * count]) }, into: fec)
                bodyOffset = header.length + (try ULPFECHeader(parsing: UnsafeRawBufferPointer(fec))).serializedSize
            } catch {
                preconditionFailure("media packets leave room for the FEC that protects them: \(error)")
            }
            for index in stride(from: first, to: group.count, by: count) {
                store[group[index]].protectingFEC = (slot, header.sequenceNumber, bodyOffset)
            }
            store[slot] = PacketStore.Entry(
                encodingIndex: encodingIndex, sequenceNumber: header.sequenceNumber, captureTimeNs: timestampNs,
                length: header.length + fecLength, headerLength: header.length, isKeyframe: false, endsFrame: false, isFEC: true,
                absoluteSendTimeOffset: header.absoluteSendTimeOffset, transportSequenceNumberOffset: header.transportSequenceNumberOffset)
            packetWritten(slot)
        }
    }

    /// Writes the planned packets of `frame` into slots of `store` (which must hold them all) and
    /// hands each slot to `packetWritten`, in order.
    mutating func write(_ frame: EncodedFrame, plan: FramePlan, nowNs: Int64, into store: PacketStore, packetWritten: (Int) -> Void) {
        let split = plan.split
        frame.data.withUnsafeBytes { data in
            for index in 0..<split.packetCount {
                guard let slot = store.allocate() else { preconditionFailure("the store was checked for room first") }
                let isLast = index == split.packetCount - 1
                let buffer = store.buffer(slot)
                let header = stream.writeHeader(
                    timestampNs: frame.timestampNs, marker: isLast, orientation: isLast ? plan.orientation : nil,
                    captureTime: index == 0 ? plan.captureTime : nil, into: buffer)
                let payloadLength = split.writePayload(
                    ofPacket: index, frame: data, into: UnsafeMutableRawBufferPointer(rebasing: buffer[header.length...]))
                store[slot] = PacketStore.Entry(
                    encodingIndex: encodingIndex, sequenceNumber: header.sequenceNumber, captureTimeNs: frame.timestampNs,
                    length: header.length + payloadLength, headerLength: header.length, isKeyframe: frame.isKeyframe,
                    endsFrame: isLast, absoluteSendTimeOffset: header.absoluteSendTimeOffset,
                    transportSequenceNumberOffset: header.transportSequenceNumberOffset)
                packetWritten(slot)
            }
        }
        if let captureTime = plan.captureTime {
            captureTimes.sent(captureTime, rtpTimestamp: stream.clock.rtpTimestamp(forNs: frame.timestampNs), atNs: nowNs)
        }
    }
}
