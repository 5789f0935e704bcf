import RTP

/// One RTCP packet of a compound packet.
public enum RTCPPacket: Equatable, Sendable {
    case senderReport(RTCPSenderReport)
    case receiverReport(RTCPReceiverReport)
    case sourceDescription(RTCPSourceDescription)
    case bye(RTCPBye)
    /// A packet type this module does not model (feedback, APP, XR), kept as it came.
    case other(packetType: UInt8, count: UInt8, body: [UInt8])

    var wireFormat: any WireFormat {
        switch self {
        case .senderReport(let packet): packet
        case .receiverReport(let packet): packet
        case .sourceDescription(let packet): packet
        case .bye(let packet): packet
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
/// Parsing accepts any order, since RFC 5506 reduced-size RTCP drops the SR/RR-first rule.
public struct RTCPCompoundPacket: WireFormat, Equatable, Sendable {
    public var packets: [RTCPPacket]

    public init(packets: [RTCPPacket]) {
        self.packets = packets
    }

    /// The report a sender sends on its RTCP timer, or with `bye` when it stops.
    public static func senderReport(_ report: RTCPSenderReport, cname: String, bye: RTCPBye? = nil) -> RTCPCompoundPacket {
        var packets: [RTCPPacket] = [.senderReport(report), .sourceDescription(RTCPSourceDescription(ssrc: report.ssrc, cname: cname))]
        if let bye { packets.append(.bye(bye)) }
        return RTCPCompoundPacket(packets: packets)
    }

    public var serializedSize: Int { packets.reduce(0) { $0 + $1.wireFormat.serializedSize } }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int {
        var writer = try ByteWriter(buffer, size: serializedSize, structure: "RTCP compound packet")
        for packet in packets { try writer.write(packet.wireFormat) }
        return writer.offset
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        guard !bytes.isEmpty else {
            throw .truncated(structure: "RTCP compound packet", needed: RTCPCommonHeader.size, available: 0)
        }
        packets = []
        var offset = 0
        while offset < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            let header = try RTCPCommonHeader(parsing: rest, structure: "RTCP packet")
            let packet = UnsafeRawBufferPointer(rebasing: rest[..<header.packetSize])
            switch header.packetType {
            case RTCPPacketType.senderReport: packets.append(.senderReport(try RTCPSenderReport(parsing: packet)))
            case RTCPPacketType.receiverReport: packets.append(.receiverReport(try RTCPReceiverReport(parsing: packet)))
            case RTCPPacketType.sourceDescription:
                packets.append(.sourceDescription(try RTCPSourceDescription(parsing: packet)))
            case RTCPPacketType.bye: packets.append(.bye(try RTCPBye(parsing: packet)))
            default:
                let opaque = try OpaqueRTCPPacket(parsing: packet)
                packets.append(.other(packetType: opaque.packetType, count: opaque.count, body: opaque.body))
            }
            offset += header.packetSize
        }
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
        var writer = try ByteWriter(buffer, size: serializedSize, structure: "RTCP packet")
        RTCPCommonHeader.write(count: Int(count), packetType: packetType, packetSize: serializedSize, to: &writer)
        body.withUnsafeBytes { writer.write($0) }
        writer.padToWordBoundary()
        return writer.offset
    }
}
