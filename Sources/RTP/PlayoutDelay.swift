/// The playout delay header extension (webrtc.org, `rtp-hdrext/playout-delay`): the least and
/// the most time the sender wants the receiver to hold a frame between receiving and rendering
/// it, each 12 bits in steps of 10 ms (0 to 40.95 s). MIN = MAX = 0 asks a receiver to render
/// every frame as soon as it is decoded; libwebrtc's receiver does so when MIN is 0 and MAX at
/// most 500 ms, and keeps its jitter buffer's delay between the two otherwise.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  ID   | len=2 |       MIN delay       |       MAX delay       |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// The value here is the 3 data bytes; `element(id:)` wraps them in an RFC 8285 element.
public struct PlayoutDelay: RTPHeaderExtensionData, Hashable, Sendable {
    public static let dataCount = 3
    /// One step of MIN and MAX.
    public static let granularityMs = 10
    /// The largest MIN or MAX, in steps.
    public static let maximumSteps: UInt16 = 0xFFF
    /// 40.95 s, the most the 12 bits say.
    public static let maximumMs = Int(maximumSteps) * granularityMs

    /// In steps of 10 ms, at most `maximumSteps`.
    public let minimum: UInt16
    public let maximum: UInt16

    /// nil unless `minimum <= maximum <= maximumSteps`, as libwebrtc's parser insists.
    public init?(minimum: UInt16, maximum: UInt16) {
        guard minimum <= maximum, maximum <= Self.maximumSteps else { return nil }
        self.minimum = minimum
        self.maximum = maximum
    }

    /// nil unless both are whole steps of 10 ms within 0...40950 and `minimumMs <= maximumMs`.
    public init?(minimumMs: Int, maximumMs: Int) {
        guard (0...Self.maximumMs).contains(minimumMs), (0...Self.maximumMs).contains(maximumMs),
            minimumMs % Self.granularityMs == 0, maximumMs % Self.granularityMs == 0
        else { return nil }
        self.init(minimum: UInt16(minimumMs / Self.granularityMs), maximum: UInt16(maximumMs / Self.granularityMs))
    }

    public var minimumMs: Int { Int(minimum) * Self.granularityMs }
    public var maximumMs: Int { Int(maximum) * Self.granularityMs }

    public var serializedSize: Int { Self.dataCount }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        guard bytes.count == Self.dataCount else {
            throw .invalid(structure: "playout-delay extension", reason: "\(bytes.count) data bytes, expected 3")
        }
        var reader = ByteReader(bytes, structure: "playout-delay extension")
        let value = try reader.readUInt24()
        guard let delay = Self(minimum: UInt16(value >> 12), maximum: UInt16(value & 0xFFF)) else {
            throw .invalid(structure: "playout-delay extension", reason: "MIN \(value >> 12) is above MAX \(value & 0xFFF)")
        }
        self = delay
    }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int {
        var writer = try ByteWriter(buffer, size: serializedSize, structure: "playout-delay extension")
        writer.writeUInt24(UInt32(minimum) << 12 | UInt32(maximum))
        return writer.offset
    }
}
