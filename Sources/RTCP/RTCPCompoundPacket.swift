import RTP

/// One RTCP packet of a compound packet.
public enum RTCPPacket: Equatable, Sendable {
    case senderReport(RTCPSenderReport)
    case receiverReport(RTCPReceiverReport)
    case sourceDescription(RTCPSourceDescription)
    case bye(RTCPBye)
    case applicationDefined(RTCPApplicationDefined)
    case genericNACK(RTCPGenericNACK)
    case transportWideFeedback(RTCPTransportWideFeedback)
    case pictureLossIndication(RTCPPictureLossIndication)
    case fullIntraRequest(RTCPFullIntraRequest)
    case receiverEstimatedMaximumBitrate(RTCPReceiverEstimatedMaximumBitrate)
    case extendedReport(RTCPExtendedReport)
    /// A packet type or feedback FMT this module does not model (SLI, TMMBR, other
    /// application layer feedback), kept as it came; `count` holds the FMT of feedback.
    case other(packetType: UInt8, count: UInt8, body: [UInt8])

    /// Reads the packet `header` framed at the start of `bytes` as the type its PT and FMT name.
    init(parsing bytes: UnsafeRawBufferPointer, header: RTCPCommonHeader) throws(WireFormatError) {
        switch (header.packetType, UInt8(header.count)) {
        case (RTCPPacketType.senderReport, _): self = .senderReport(try RTCPSenderReport(parsing: bytes))
        case (RTCPPacketType.receiverReport, _): self = .receiverReport(try RTCPReceiverReport(parsing: bytes))
        case (RTCPPacketType.sourceDescription, _): self = .sourceDescription(try RTCPSourceDescription(parsing: bytes))
        case (RTCPPacketType.bye, _): self = .bye(try RTCPBye(parsing: bytes))
        case (RTCPPacketType.applicationDefined, _): self = .applicationDefined(try RTCPApplicationDefined(parsing: bytes))
        case (RTCPPacketType.extendedReport, _): self = .extendedReport(try RTCPExtendedReport(parsing: bytes))
        case (RTCPPacketType.transportLayerFeedback, RTCPGenericNACK.format):
            self = .genericNACK(try RTCPGenericNACK(parsing: bytes))
        case (RTCPPacketType.transportLayerFeedback, RTCPTransportWideFeedback.format):
            self = .transportWideFeedback(try RTCPTransportWideFeedback(parsing: bytes))
        case (RTCPPacketType.payloadSpecificFeedback, RTCPPictureLossIndication.format):
            self = .pictureLossIndication(try RTCPPictureLossIndication(parsing: bytes))
        case (RTCPPacketType.payloadSpecificFeedback, RTCPFullIntraRequest.format):
            self = .fullIntraRequest(try RTCPFullIntraRequest(parsing: bytes))
        case (RTCPPacketType.payloadSpecificFeedback, RTCPReceiverEstimatedMaximumBitrate.format)
        where RTCPReceiverEstimatedMaximumBitrate.isTagged(body: header.body):
            self = .receiverEstimatedMaximumBitrate(try RTCPReceiverEstimatedMaximumBitrate(parsing: bytes))
        default:
            self = .other(packetType: header.packetType, count: UInt8(header.count), body: Array(header.body))
        }
    }

    var wireFormat: any WireFormat {
        switch self {
        case .senderReport(let packet): packet
        case .receiverReport(let packet): packet
        case .sourceDescription(let packet): packet
        case .bye(let packet): packet
        case .applicationDefined(let packet): packet
        case .genericNACK(let packet): packet
        case .transportWideFeedback(let packet): packet
        case .pictureLossIndication(let packet): packet
        case .fullIntraRequest(let packet): packet
        case .receiverEstimatedMaximumBitrate(let packet): packet
        case .extendedReport(let packet): packet
        case .other(let packetType, let count, let body): OpaqueRTCPPacket(packetType: packetType, count: count, body: body)
        }
    }
}

/// Packets stacked back to back in one datagram (RFC 3550 §6.1): a sender sends SR + SDES,
/// and SR + SDES + BYE when it stops.
///
/// ```
/// +------------+------------------+----------------+
/// | SR or RR   | SDES (CNAME)     | BYE (optional) |  each: common header + body
/// +------------+------------------+----------------+
/// ```
///
/// Parsing accepts any order and any single packet, since RFC 5506 reduced-size RTCP drops the
/// SR/RR-first rule: receivers send a lone NACK, PLI or transport-wide feedback. `init(parsing:)`
/// is strict and throws if any packet is malformed; `parseValidPackets(_:)` keeps the packets that
/// parse and reports the rest (see `RTCPCompoundParseResult` for the rule).
public struct RTCPCompoundPacket: WireFormat, Equatable, Sendable {
    public var packets: [RTCPPacket]

    public init(packets: [RTCPPacket]) {
        self.packets = packets
    }

    /// The report a sender sends on its RTCP timer: an SR for each of its media streams, one SDES
    /// with each one's CNAME (RFC 3550 §6.4.1, §6.5; several sources in one compound, RFC 8108
    /// §5.3), an extended report when given, and with `bye` a BYE for all of them (§6.6, last)
    /// when it stops.
    public static func senderReports(
        _ reports: [RTCPSenderReport], cname: String, extendedReport: RTCPExtendedReport? = nil, bye: Bool = false
    ) -> RTCPCompoundPacket {
        var packets = reports.map { RTCPPacket.senderReport($0) }
        packets.append(.sourceDescription(RTCPSourceDescription(
            chunks: reports.map { RTCPSourceDescription.Chunk(ssrc: $0.ssrc, items: [.cname(cname)]) })))
        if let extendedReport { packets.append(.extendedReport(extendedReport)) }
        if bye { packets.append(.bye(RTCPBye(ssrcs: reports.map(\.ssrc)))) }
        return RTCPCompoundPacket(packets: packets)
    }

    public var serializedSize: Int { packets.reduce(0) { $0 + $1.wireFormat.serializedSize } }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int {
        var writer = try ByteWriter(buffer, size: serializedSize, structure: "RTCP compound packet")
        for packet in packets { try writer.write(packet.wireFormat) }
        return writer.offset
    }

    /// Every packet of the datagram, or the first error.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        let result = Self.parseValidPackets(bytes)
        if let error = result.rejections.first { throw error }
        packets = result.packets
    }

    /// The packets of the datagram that parse, and an error for each that does not: a packet
    /// with malformed contents is skipped alone, a broken common header ends the datagram.
    public static func parseValidPackets(_ bytes: UnsafeRawBufferPointer) -> RTCPCompoundParseResult {
        var result = RTCPCompoundParseResult()
        guard !bytes.isEmpty else {
            result.rejections.append(.truncated(structure: "RTCP compound packet", needed: RTCPCommonHeader.size, available: 0))
            return result
        }
        var offset = 0
        while offset < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            let header: RTCPCommonHeader
            do throws(WireFormatError) {
                header = try RTCPCommonHeader(parsing: rest, structure: "RTCP packet")
            } catch {
                result.rejections.append(error)
                break
            }
            do throws(WireFormatError) {
                result.packets.append(try RTCPPacket(parsing: UnsafeRawBufferPointer(rebasing: rest[..<header.packetSize]), header: header))
            } catch {
                result.rejections.append(error)
            }
            offset += header.packetSize
        }
        return result
    }
}

/// Writes back an RTCP packet of a type this module does not model.
struct OpaqueRTCPPacket: WireFormat {
    let packetType: UInt8
    let count: UInt8
    let body: [UInt8]

    init(packetType: UInt8, count: UInt8, body: [UInt8]) {
        self.packetType = packetType
        self.count = count
        self.body = body
    }

    init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        let header = try RTCPCommonHeader(parsing: bytes, structure: "RTCP packet")
        self.init(packetType: header.packetType, count: UInt8(header.count), body: Array(header.body))
    }

    /// The body padded to a word, since a parsed padded body lost its padding.
    var serializedSize: Int { RTCPCommonHeader.size + (body.count + 3) / 4 * 4 }

    func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int {
        var writer = try RTCPCommonHeader.writer(
            into: buffer, count: Int(count), packetType: packetType, packetSize: serializedSize, structure: "RTCP packet")
        body.withUnsafeBytes { writer.write($0) }
        writer.padToWordBoundary()
        return writer.offset
    }
}
