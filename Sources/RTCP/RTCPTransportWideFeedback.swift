import RTP

/// Transport-wide congestion control feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01
/// §3.1): RTPFB FMT 15, when each packet carrying the transport-wide sequence number arrived.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|  FMT=15 |    PT=205     |           length              |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                     SSRC of packet sender                     |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                      SSRC of media source                     |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |      base sequence number     |      packet status count      |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                 reference time                | fb pkt. count |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |          packet chunk         |         packet chunk          |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// .                                                               .
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |         packet chunk          |  recv delta   |  recv delta   |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// .                                                               .
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |           recv delta          |  recv delta   | zero padding  |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// The packet status chunks (`TransportWideFeedbackChunk`) give a status for each of `packet
/// status count` sequence numbers from the base, wrapping at 2¹⁶. Each received packet then has a
/// receive delta in 250 µs units: 1 byte unsigned for a small delta, 2 bytes signed for a large or
/// negative one. The first delta is from the reference time, a signed 24-bit count of 64 ms; each
/// later one from the packet before. The feedback packet count increases by one per feedback
/// packet, so the media sender can tell a lost feedback packet.
///
/// Parsing keeps the chunks and deltas as they came, so memory stays proportional to the
/// packet's size even when a few bytes of run length chunks claim 65535 statuses;
/// `packetResults` expands them lazily. Bytes after the last delta are ignored, as GStreamer pads
/// with zeros without setting P; writing pads with P set and a count byte, as libwebrtc does.
public struct RTCPTransportWideFeedback: WireFormat, Equatable, Sendable {
    public static let format: UInt8 = 15
    /// The step of the reference time.
    public static let referenceTimeUnitUs: Int64 = 64_000
    /// The step of the receive deltas.
    public static let receiveDeltaUnitUs: Int64 = 250
    /// The 16-bit packet status count's limit.
    public static let maximumPacketStatusCount = 0xFFFF

    /// One packet's fate.
    public struct PacketResult: Equatable, Sendable {
        /// The transport-wide sequence number.
        public var sequenceNumber: UInt16
        /// When the packet arrived, on the feedback sender's clock; nil when it did not arrive.
        public var receiveTimeUs: Int64?

        public init(sequenceNumber: UInt16, receiveTimeUs: Int64?) {
            self.sequenceNumber = sequenceNumber
            self.receiveTimeUs = receiveTimeUs
        }
    }

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    public var feedbackPacketCount: UInt8
    /// The sequence number of the first status.
    public private(set) var baseSequenceNumber: UInt16
    /// How many sequence numbers from the base the feedback covers, at most 65535.
    public private(set) var packetStatusCount: Int
    /// Signed 24 bits in units of 64 ms.
    private var referenceTime: Int32
    private var chunks: [TransportWideFeedbackChunk]
    /// In units of 250 µs, one per received packet.
    private var receiveDeltas: [Int16]
    private var receiveDeltaSize: Int

    /// The reference time in microseconds: a multiple of 64 ms, wrapping every 2²⁴ × 64 ms
    /// (about 12.4 days).
    public var referenceTimeUs: Int64 { Int64(referenceTime) * Self.referenceTimeUnitUs }

    /// Feedback for `packets`, in sequence order. A sequence number skipped between two packets
    /// counts as not received. Receive times are floored to 250 µs; the reference time is the
    /// first received packet's, floored to 64 ms (0 if none arrived). Throws when a packet does
    /// not follow the one before (by 1 to 32767, modulo 2¹⁶), when the statuses exceed 65535,
    /// or when a gap between receive times exceeds what 2 signed bytes hold (−8.192 s to
    /// +8.19175 s): the caller then starts a new feedback packet.
    public init(
        senderSSRC: UInt32, mediaSSRC: UInt32, feedbackPacketCount: UInt8, packets: some Sequence<PacketResult>
    ) throws(WireFormatError) {
        let structure = "RTCP transport-wide feedback"
        var symbols: [TransportWideFeedbackChunk.Symbol] = []
        var deltas: [Int16] = []
        var base: UInt16?
        var previous: UInt16 = 0
        var referenceTicks: Int64?
        var previousTicks: Int64 = 0
        for packet in packets {
            if base == nil {
                base = packet.sequenceNumber
            } else {
                let step = packet.sequenceNumber &- previous
                guard step != 0, step < 0x8000 else {
                    throw .invalid(structure: structure, reason: "sequence number \(packet.sequenceNumber) does not follow \(previous)")
                }
                guard symbols.count + Int(step) <= Self.maximumPacketStatusCount else {
                    throw .invalid(structure: structure, reason: "more than \(Self.maximumPacketStatusCount) packet statuses")
                }
                symbols.append(contentsOf: repeatElement(.notReceived, count: Int(step) - 1))
            }
            previous = packet.sequenceNumber
            guard let receiveTimeUs = packet.receiveTimeUs else {
                symbols.append(.notReceived)
                continue
            }
            let ticks = Self.floorDivision(receiveTimeUs, Self.receiveDeltaUnitUs)
            if referenceTicks == nil {
                let reference = Self.floorDivision(receiveTimeUs, Self.referenceTimeUnitUs)
                referenceTicks = reference
                previousTicks = reference * (Self.referenceTimeUnitUs / Self.receiveDeltaUnitUs)
            }
            guard let delta = Int16(exactly: ticks - previousTicks) else {
                throw .invalid(
                    structure: structure,
                    reason: "receive delta of \(ticks - previousTicks) × 250 µs does not fit 16 bits")
            }
            symbols.append(UInt8(exactly: delta) == nil ? .receivedLargeDelta : .receivedSmallDelta)
            deltas.append(delta)
            previousTicks = ticks
        }
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.feedbackPacketCount = feedbackPacketCount
        baseSequenceNumber = base ?? 0
        packetStatusCount = symbols.count
        // The low 24 bits, sign-extended: the field wraps.
        referenceTime = (Int32(truncatingIfNeeded: referenceTicks ?? 0) << 8) >> 8
        chunks = TransportWideFeedbackChunk.encode(symbols)
        receiveDeltas = deltas
        receiveDeltaSize = symbols.reduce(0) { $0 + $1.deltaSize }
    }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> Int64 {
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? quotient - 1 : quotient
    }

    /// Each covered sequence number with its receive time or nil, in order. Lazy: the work is
    /// one step per status, the memory none.
    public var packetResults: PacketResults { PacketResults(feedback: self) }

    public struct PacketResults: Sequence, Sendable {
        let feedback: RTCPTransportWideFeedback

        public var underestimatedCount: Int { feedback.packetStatusCount }

        public func makeIterator() -> Iterator { Iterator(feedback: feedback) }

        public struct Iterator: IteratorProtocol, Sendable {
            private let feedback: RTCPTransportWideFeedback
            private var emittedCount = 0
            private var chunkIndex = 0
            private var indexInChunk = 0
            private var deltaIndex = 0
            /// The last receive time, in units of 250 µs.
            private var timeTicks: Int64

            init(feedback: RTCPTransportWideFeedback) {
                self.feedback = feedback
                timeTicks = Int64(feedback.referenceTime)
                    * (RTCPTransportWideFeedback.referenceTimeUnitUs / RTCPTransportWideFeedback.receiveDeltaUnitUs)
            }

            public mutating func next() -> PacketResult? {
                guard emittedCount < feedback.packetStatusCount else { return nil }
                let chunks = feedback.chunks
                while chunkIndex < chunks.count, indexInChunk >= chunks[chunkIndex].capacity {
                    chunkIndex += 1
                    indexInChunk = 0
                }
                guard chunkIndex < chunks.count else { return nil }
                let symbol = chunks[chunkIndex].rawSymbol(at: indexInChunk)
                indexInChunk += 1
                let sequenceNumber = feedback.baseSequenceNumber &+ UInt16(truncatingIfNeeded: emittedCount)
                emittedCount += 1
                guard symbol != TransportWideFeedbackChunk.Symbol.notReceived.rawValue else {
                    return PacketResult(sequenceNumber: sequenceNumber, receiveTimeUs: nil)
                }
                guard deltaIndex < feedback.receiveDeltas.count else { return nil }
                timeTicks += Int64(feedback.receiveDeltas[deltaIndex])
                deltaIndex += 1
                return PacketResult(sequenceNumber: sequenceNumber, receiveTimeUs: timeTicks * RTCPTransportWideFeedback.receiveDeltaUnitUs)
            }
        }
    }

    /// Header, base, count, reference time, chunks and deltas, before padding.
    private var unpaddedSize: Int { RTCPFeedbackHeader.size + 8 + 2 * chunks.count + receiveDeltaSize }

    public var serializedSize: Int { (unpaddedSize + 3) / 4 * 4 }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int {
        let paddingCount = serializedSize - unpaddedSize
        var writer = try RTCPFeedbackHeader.writer(
            into: buffer, packetType: RTCPPacketType.transportLayerFeedback, format: Self.format, packetSize: serializedSize,
            isPadded: paddingCount > 0, senderSSRC: senderSSRC, mediaSSRC: mediaSSRC,
            structure: "RTCP transport-wide feedback")
        writer.write(baseSequenceNumber)
        writer.write(UInt16(packetStatusCount))
        writer.writeUInt24(UInt32(bitPattern: referenceTime) & 0xFF_FFFF)
        writer.write(feedbackPacketCount)
        for chunk in chunks { writer.write(chunk.word) }
        var deltaIndex = 0
        forEachReceivedSymbol { symbol in
            let delta = receiveDeltas[deltaIndex]
            deltaIndex += 1
            if symbol == .receivedSmallDelta {
                writer.write(UInt8(truncatingIfNeeded: delta))
            } else {
                writer.write(UInt16(bitPattern: delta))
            }
        }
        if paddingCount > 0 {
            writer.writeZeros(paddingCount - 1)
            writer.write(UInt8(paddingCount))
        }
        return writer.offset
    }

    /// Calls `body` with the symbol of each received packet, in order.
    private func forEachReceivedSymbol<E: Error>(
        _ body: (TransportWideFeedbackChunk.Symbol) throws(E) -> Void
    ) throws(E) {
        var remaining = packetStatusCount
        for chunk in chunks where remaining > 0 {
            let count = min(chunk.capacity, remaining)
            try chunk.forEachReceived(inFirst: count, body)
            remaining -= count
        }
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        let structure = "RTCP transport-wide feedback"
        let header = try RTCPFeedbackHeader(
            parsing: bytes, packetType: RTCPPacketType.transportLayerFeedback, format: Self.format, structure: structure)
        var reader = ByteReader(header.fci, structure: structure)
        senderSSRC = header.senderSSRC
        mediaSSRC = header.mediaSSRC
        baseSequenceNumber = try reader.readUInt16()
        packetStatusCount = Int(try reader.readUInt16())
        // Sign-extend the 24-bit field.
        referenceTime = Int32(bitPattern: try reader.readUInt24() << 8) >> 8
        feedbackPacketCount = try reader.readUInt8()
        // Each chunk takes 2 bytes and the deltas are checked to be there before they are read,
        // so what is kept is bounded by the packet's size, not by the status count it claims.
        chunks = []
        receiveDeltaSize = 0
        var covered = 0
        while covered < packetStatusCount {
            let chunk = TransportWideFeedbackChunk(word: try reader.readUInt16())
            let count = min(chunk.capacity, packetStatusCount - covered)
            receiveDeltaSize += try chunk.receiveDeltaSize(inFirst: count)
            chunks.append(chunk)
            covered += count
        }
        try reader.require(receiveDeltaSize)
        receiveDeltas = []
        var deltas: [Int16] = []
        try forEachReceivedSymbol { (symbol) throws(WireFormatError) in
            if symbol == .receivedSmallDelta {
                deltas.append(Int16(try reader.readUInt8()))
            } else {
                deltas.append(Int16(bitPattern: try reader.readUInt16()))
            }
        }
        receiveDeltas = deltas
    }
}
