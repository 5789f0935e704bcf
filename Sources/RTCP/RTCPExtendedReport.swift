import RTP

extension RTCPPacketType {
    /// XR, extended reports (RFC 3611 §2).
    public static let extendedReport: UInt8 = 207
}

/// An RTCP extended report, XR (RFC 3611 §2): report blocks after the sender's SSRC.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|reserved |   PT=XR=207   |             length            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                              SSRC                             |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |      BT       | type-specific |         block length          |  each block (§3):
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+  block length counts
/// :             type-specific block contents                      :  its words after this one
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// The two blocks that give a receiver which sends no media its round-trip time are modelled:
/// the receiver's reference time (RRTR, BT = 4, §4.4), and the sender's answer, DLRR (BT = 5,
/// §4.5). Browsers negotiate them with `a=rtcp-xr:rcvr-rtt=all` (§5.1); other blocks are kept
/// as they came.
public struct RTCPExtendedReport: WireFormat, Equatable, Sendable {
    public enum Block: Equatable, Sendable {
        /// RRTR (§4.4): the receiver's NTP time as it sent the report.
        ///
        /// ```
        /// |     BT=4      |   reserved    |       block length = 2        |
        /// |              NTP timestamp, most significant word             |
        /// |             NTP timestamp, least significant word             |
        /// ```
        case receiverReferenceTime(NTPTimestamp)
        /// DLRR (§4.5): for each receiver, the middle 32 bits of its last RRTR and the delay
        /// since, in 1/65536 s.
        ///
        /// ```
        /// |     BT=5      |   reserved    |         block length          |
        /// |                 SSRC_1 (SSRC of first receiver)               | sub-
        /// |                         last RR (LRR)                         | block
        /// |                   delay since last RR (DLRR)                  | 1
        /// :                               ...                             :
        /// ```
        case delaySinceLastReceiverReport([DelaySinceLastReceiverReport])
        /// Any other block, its contents as they came.
        case other(blockType: UInt8, typeSpecific: UInt8, contents: [UInt8])

        static let receiverReferenceTimeType: UInt8 = 4
        static let delaySinceLastReceiverReportType: UInt8 = 5

        /// Block header and contents.
        var serializedSize: Int {
            switch self {
            case .receiverReferenceTime: 12
            case .delaySinceLastReceiverReport(let subBlocks): 4 + 12 * subBlocks.count
            case .other(_, _, let contents): 4 + (contents.count + 3) / 4 * 4
            }
        }
    }

    /// One receiver's entry in a DLRR block.
    public struct DelaySinceLastReceiverReport: Equatable, Sendable {
        public var ssrc: UInt32
        /// The middle 32 bits of the receiver's last RRTR timestamp.
        public var lastReceiverReport: UInt32
        /// From that RRTR's arrival to this report, in 1/65536 s.
        public var delay: UInt32

        public init(ssrc: UInt32, lastReceiverReport: UInt32, delay: UInt32) {
            self.ssrc = ssrc
            self.lastReceiverReport = lastReceiverReport
            self.delay = delay
        }
    }

    public var ssrc: UInt32
    public var blocks: [Block]

    public init(ssrc: UInt32, blocks: [Block]) {
        self.ssrc = ssrc
        self.blocks = blocks
    }

    public var serializedSize: Int { RTCPCommonHeader.size + 4 + blocks.reduce(0) { $0 + $1.serializedSize } }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int {
        var writer = try RTCPCommonHeader.writer(
            into: buffer, count: 0, packetType: RTCPPacketType.extendedReport, packetSize: serializedSize, structure: "RTCP XR")
        writer.write(ssrc)
        for block in blocks {
            switch block {
            case .receiverReferenceTime(let time):
                Self.writeBlockHeader(Block.receiverReferenceTimeType, typeSpecific: 0, size: block.serializedSize, to: &writer)
                writer.write(time.seconds)
                writer.write(time.fraction)
            case .delaySinceLastReceiverReport(let subBlocks):
                Self.writeBlockHeader(Block.delaySinceLastReceiverReportType, typeSpecific: 0, size: block.serializedSize, to: &writer)
                for subBlock in subBlocks {
                    writer.write(subBlock.ssrc)
                    writer.write(subBlock.lastReceiverReport)
                    writer.write(subBlock.delay)
                }
            case .other(let blockType, let typeSpecific, let contents):
                Self.writeBlockHeader(blockType, typeSpecific: typeSpecific, size: block.serializedSize, to: &writer)
                writer.write(contents)
                writer.padToWordBoundary()
            }
        }
        return writer.offset
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        let header = try RTCPCommonHeader(parsing: bytes, packetType: RTCPPacketType.extendedReport, structure: "RTCP XR")
        var reader = ByteReader(header.body, structure: "RTCP XR")
        ssrc = try reader.readUInt32()
        blocks = []
        while reader.remaining > 0 {
            let blockType = try reader.readUInt8()
            let typeSpecific = try reader.readUInt8()
            let words = Int(try reader.readUInt16())
            var contents = ByteReader(try reader.readBytes(4 * words), structure: "RTCP XR report block")
            switch blockType {
            case Block.receiverReferenceTimeType:
                guard words == 2 else {
                    throw .invalid(structure: "RTCP XR receiver reference time", reason: "block length \(words), expected 2")
                }
                blocks.append(.receiverReferenceTime(NTPTimestamp(seconds: try contents.readUInt32(), fraction: try contents.readUInt32())))
            case Block.delaySinceLastReceiverReportType:
                guard words % 3 == 0 else {
                    throw .invalid(structure: "RTCP XR DLRR", reason: "block length \(words) is not a multiple of 3")
                }
                var subBlocks: [DelaySinceLastReceiverReport] = []
                for _ in 0..<words / 3 {
                    subBlocks.append(DelaySinceLastReceiverReport(
                        ssrc: try contents.readUInt32(), lastReceiverReport: try contents.readUInt32(), delay: try contents.readUInt32()))
                }
                blocks.append(.delaySinceLastReceiverReport(subBlocks))
            default:
                blocks.append(.other(blockType: blockType, typeSpecific: typeSpecific, contents: Array(contents.bytes)))
            }
        }
    }

    private static func writeBlockHeader(_ blockType: UInt8, typeSpecific: UInt8, size: Int, to writer: inout ByteWriter) {
        writer.write(blockType)
        writer.write(typeSpecific)
        writer.write(UInt16(size / 4 - 1))
    }
}
