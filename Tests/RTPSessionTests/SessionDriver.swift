import CongestionControl
import MediaCore
import Pacing
import RTCP
import RTP
import Testing
import RTPSession

/// Drives a `SendSession` as its owner does, on a clock the test sets: frames and feedback in,
/// packets, reports and outputs out. No thread, no socket.
final class SessionDriver {
    static let ms: Int64 = 1_000_000
    /// The transport-wide sequence number's extension ID in the sessions built here.
    static let transportWideID: UInt8 = 3
    static let absoluteSendTimeID: UInt8 = 2

    let session: SendSession
    var nowNs: Int64 = 1_000 * SessionDriver.ms
    private let batch = RTPPacketBatch(slotCapacity: 1_200, initialSlotCount: SendSession.maximumBatchCount)
    private(set) var outputs: [SessionOutput] = []

    /// The extensions of the sessions built here unless a test gives others.
    static let defaultExtensions = HeaderExtensionIDs(absoluteSendTime: absoluteSendTimeID, transportWideSequenceNumber: transportWideID)
    /// Monotonic 0 is 2023-11-14 22:13:20 UTC.
    static let ntpClock = NTPClock(monotonicNs: 0, unixTimeNs: 1_700_000_000_000_000_000)

    /// `encodings` media streams with SSRCs 0x1000, 0x2000, … and RTX SSRCs one above each. Unless
    /// `tuning` says otherwise, packets leave as soon as they are queued (no pacing, no probes),
    /// at 1500 kbit/s.
    /// RED's and ULPFEC's payload types when `fec` is given.
    static let redPayloadType: UInt8 = 100
    static let ulpfecPayloadType: UInt8 = 101

    /// `encodingIndexes` are the encoder's indexes the streams carry (0, 1, … unless given),
    /// `rids` their RIDs and `mid` the section's MID.
    init(
        encodings: Int = 1, encodingIndexes: [Int]? = nil, retransmission: Retransmission = .rtx, fec: FECMode? = nil,
        extensions: HeaderExtensionIDs = SessionDriver.defaultExtensions, rids: [String] = [], mid: String? = nil,
        tuning: (inout SenderTuning) -> Void = { _ in }
    ) throws {
        var senderTuning = SenderTuning(
            retransmission: retransmission,
            congestionControl: CongestionControllerConfiguration(startBitrateBps: 1_500_000, maxBitrateBps: 1_500_000, isProbingEnabled: false),
            pacing: PacerConfiguration(isPacingEnabled: false))
        senderTuning.fec = fec ?? .off
        tuning(&senderTuning)
        let streams = (0..<encodings).map { index -> EncodingStreams in
            let media = RTPSessionParameters(
                ssrc: Self.ssrc(ofEncoding: index), initialSequenceNumber: UInt16(100 * (index + 1)), timestampOffset: 0,
                initialPictureID: 0)
            return EncodingStreams(
                encodingIndex: encodingIndexes?[index], media: media, rtxSSRC: Self.rtxSSRC(ofEncoding: index),
                rid: rids.indices.contains(index) ? RTPStreamID(rids[index]) : nil)
        }
        session = try SendSession(
            configuration: SendSessionConfiguration(
                tuning: senderTuning, encodings: streams, payloadType: 96, rtxPayloadType: 97, extensions: extensions,
                fec: fec.map { _ in FECPayloadTypes(red: Self.redPayloadType, ulpfec: Self.ulpfecPayloadType) },
                mid: mid.flatMap(MediaIdentification.init)),
            ntpClock: Self.ntpClock, randomSeed: 42)
    }

    static func ssrc(ofEncoding index: Int) -> UInt32 { UInt32(index + 1) << 12 }
    static func rtxSSRC(ofEncoding index: Int) -> UInt32 { ssrc(ofEncoding: index) + 1 }

    func advance(byMs milliseconds: Int64) {
        nowNs += milliseconds * Self.ms
    }

    func send(_ frame: EncodedFrame) {
        session.send(frame, nowNs: nowNs)
    }

    /// Ticks and writes out everything due now, as the send loop does; the packets as sent.
    @discardableResult
    func flush() -> [[UInt8]] {
        session.tick(nowNs: nowNs)
        var packets: [[UInt8]] = []
        while session.writeDuePackets(into: batch, nowNs: nowNs) > 0 {
            packets += (0..<batch.count).map { Array(batch[$0]) }
            session.packetsLeft(batch, atNs: nowNs)
        }
        drain()
        return packets
    }

    /// Everything due until `milliseconds` from now, in steps of one millisecond.
    func run(forMs milliseconds: Int64) -> [[UInt8]] {
        (0..<milliseconds).flatMap { _ in
            advance(byMs: 1)
            return flush()
        }
    }

    /// The RTCP report due now, if any, as sent.
    func report() -> RTCPCompoundPacket? {
        var buffer = [UInt8](repeating: 0, count: 1_500)
        guard let length = buffer.withUnsafeMutableBytes({ session.writeDueReport(into: $0, nowNs: nowNs) }) else { return nil }
        session.reportLeft(wireBytes: length)
        drain()
        return try? RTCPCompoundPacket(parsing: Array(buffer[..<length]))
    }

    func receive(_ packets: [RTCPPacket]) {
        receive(RTCPCompoundPacket(packets: packets).serialized())
    }

    func receive(_ datagram: [UInt8]) {
        if session.admitFeedback(nowNs: nowNs) {
            datagram.withUnsafeBytes { session.receiveRTCP($0, nowNs: nowNs) }
        }
        drain()
    }

    /// The encoder commands since the last call.
    func takeCommands() -> [EncoderCommand] {
        defer { outputs.removeAll { if case .encoder = $0 { true } else { false } } }
        return outputs.compactMap { if case .encoder(let command) = $0 { command } else { nil } }
    }

    var lastStatistics: SenderStatistics? {
        outputs.reversed().lazy.compactMap { if case .sink(.statistics(let statistics)) = $0 { statistics } else { nil } }.first
    }

    private func drain() {
        session.drainOutputs { outputs.append($0) }
    }
}

/// What a test reads from a packet the session wrote.
struct WirePacket {
    let header: RTPHeader
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) throws {
        header = try RTPHeader(parsing: bytes)
        self.bytes = bytes
    }

    var transportSequenceNumber: UInt16? {
        header.extensionElements.first { $0.id == SessionDriver.transportWideID }
            .flatMap { try? TransportWideSequenceNumber(element: $0).value }
    }

    /// An RTX packet's original sequence number (RFC 4588 §4: the payload's first two bytes).
    var originalSequenceNumber: UInt16 {
        let payload = header.serializedSize
        return UInt16(bytes[payload]) << 8 | UInt16(bytes[payload + 1])
    }

    /// A RED packet's primary block as the packet it carries (RFC 2198): the header with the
    /// block's payload type, and the block; nil when the packet is not RED.
    var unwrappedRED: [UInt8]? {
        guard header.payloadType == SessionDriver.redPayloadType else { return nil }
        let size = header.serializedSize
        var packet = Array(bytes[..<size]) + bytes[(size + 1)...]
        packet[1] = bytes[1] & 0x80 | bytes[size] & 0x7F
        return packet
    }
}
