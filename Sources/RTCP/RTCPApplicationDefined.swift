import RTP

/// An application-defined RTCP packet, APP (RFC 3550 §6.7): experiments and private extensions,
/// told apart by a four-character name and a 5-bit subtype.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P| subtype |   PT=APP=204  |             length            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                           SSRC/CSRC                           |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                          name (ASCII)                         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                   application-dependent data                ...
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// The data is a whole number of 32-bit words.
public struct RTCPApplicationDefined: WireFormat, Equatable, Sendable {
    /// 5 bits.
    public var subtype: UInt8
    public var ssrc: UInt32
    /// Four characters. Each byte read is one character (ISO 8859-1), so any name a peer sends
    /// is written back unchanged; writing refuses other lengths or characters above U+00FF.
    public var name: String
    /// A multiple of 4 bytes.
    public var data: [UInt8]

    public init(subtype: UInt8, ssrc: UInt32, name: String, data: [UInt8] = []) {
        self.subtype = subtype
        self.ssrc = ssrc
        self.name = name
        self.data = data
    }

    public var serializedSize: Int { RTCPCommonHeader.size + 8 + data.count }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int {
        guard subtype <= 31 else { throw .invalid(structure: "RTCP APP", reason: "subtype \(subtype) does not fit 5 bits") }
        let nameBytes = name.unicodeScalars.map { $0.value }
        guard nameBytes.count == 4, nameBytes.allSatisfy({ $0 <= 0xFF }) else {
            throw .invalid(structure: "RTCP APP", reason: "name \"\(name)\" is not four single-byte characters")
        }
        guard data.count % 4 == 0 else {
            throw .invalid(structure: "RTCP APP", reason: "\(data.count) data bytes, expected a multiple of 4")
        }
        var writer = try RTCPCommonHeader.writer(
            into: buffer, count: Int(subtype), packetType: RTCPPacketType.applicationDefined, packetSize: serializedSize,
            structure: "RTCP APP")
        writer.write(ssrc)
        for byte in nameBytes { writer.write(UInt8(byte)) }
        data.withUnsafeBytes { writer.write($0) }
        return writer.offset
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        let header = try RTCPCommonHeader(parsing: bytes, packetType: RTCPPacketType.applicationDefined, structure: "RTCP APP")
        var reader = ByteReader(header.body, structure: "RTCP APP")
        subtype = UInt8(header.count)
        ssrc = try reader.readUInt32()
        var name = String.UnicodeScalarView()
        for byte in try reader.readBytes(4) { name.append(Unicode.Scalar(byte)) }
        self.name = String(name)
        guard reader.remaining % 4 == 0 else {
            throw .invalid(structure: "RTCP APP", reason: "\(reader.remaining) data bytes, expected a multiple of 4")
        }
        data = Array(try reader.readBytes(reader.remaining))
    }
}
