/// The VP8 payload header at the start of a frame's first partition (RFC 7741 §4.3), which is
/// the VP8 frame tag (RFC 6386 §9.1), followed on keyframes by the start code and dimensions.
///
/// ```
///  0 1 2 3 4 5 6 7
/// +-+-+-+-+-+-+-+-+
/// |Size0|H| VER |P|
/// +-+-+-+-+-+-+-+-+
/// |     Size1     |
/// +-+-+-+-+-+-+-+-+
/// |     Size2     |
/// +-+-+-+-+-+-+-+-+
/// | Octets 4..N of VP8 payload (keyframes: 9d 01 2a, width, height) |
/// ```
///
/// P is the inverse keyframe flag (0 on keyframes), H the show-frame flag, and the first
/// partition's size is Size0 + 8 · Size1 + 2048 · Size2. Keyframe width and height are 14-bit
/// little-endian values, each with a 2-bit scale above them.
public struct VP8PayloadHeader: WireFormat, Equatable, Sendable {
    public static let keyframeStartCode: UInt32 = 0x9D012A

    /// Width and height of a keyframe, with their 2-bit upscaling codes.
    public struct Dimensions: Equatable, Sendable {
        public var width: UInt16
        public var horizontalScale: UInt8
        public var height: UInt16
        public var verticalScale: UInt8

        public init(width: UInt16, horizontalScale: UInt8 = 0, height: UInt16, verticalScale: UInt8 = 0) {
            self.width = width
            self.horizontalScale = horizontalScale
            self.height = height
            self.verticalScale = verticalScale
        }
    }

    public var version: UInt8
    public var showFrame: Bool
    /// 19 bits.
    public var firstPartitionSize: UInt32
    /// Present exactly on keyframes.
    public var keyframeDimensions: Dimensions?

    public var isKeyframe: Bool { keyframeDimensions != nil }

    public init(version: UInt8 = 0, showFrame: Bool = true, firstPartitionSize: UInt32, keyframeDimensions: Dimensions?) {
        self.version = version
        self.showFrame = showFrame
        self.firstPartitionSize = firstPartitionSize
        self.keyframeDimensions = keyframeDimensions
    }

    public var serializedSize: Int { isKeyframe ? 10 : 3 }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int {
        var writer = try ByteWriter(buffer, size: serializedSize, structure: "VP8 payload header")
        let size = firstPartitionSize & 0x7FFFF
        writer.write(UInt8(truncatingIfNeeded: size << 5) | (showFrame ? 0x10 : 0) | (version & 0x07) << 1 | (isKeyframe ? 0 : 1))
        writer.write(UInt8(truncatingIfNeeded: size >> 3))
        writer.write(UInt8(truncatingIfNeeded: size >> 11))
        if let dimensions = keyframeDimensions {
            writer.writeUInt24(Self.keyframeStartCode)
            writer.writeLittleEndian(UInt16(dimensions.horizontalScale & 0x03) << 14 | dimensions.width & 0x3FFF)
            writer.writeLittleEndian(UInt16(dimensions.verticalScale & 0x03) << 14 | dimensions.height & 0x3FFF)
        }
        return writer.offset
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        var reader = ByteReader(bytes, structure: "VP8 payload header")
        let tag = try reader.readUInt24()
        let first = UInt8(tag >> 16)
        version = first >> 1 & 0x07
        showFrame = first & 0x10 != 0
        firstPartitionSize = UInt32(first >> 5) | (tag & 0xFF) << 11 | (tag >> 8 & 0xFF) << 3
        keyframeDimensions = nil
        guard first & 0x01 == 0 else { return }
        let startCode = try reader.readUInt24()
        guard startCode == Self.keyframeStartCode else {
            throw .invalid(structure: "VP8 payload header", reason: "keyframe start code 0x\(String(startCode, radix: 16)), expected 0x9d012a")
        }
        let width = try reader.readUInt16LittleEndian()
        let height = try reader.readUInt16LittleEndian()
        keyframeDimensions = Dimensions(
            width: width & 0x3FFF, horizontalScale: UInt8(width >> 14), height: height & 0x3FFF, verticalScale: UInt8(height >> 14))
    }
}
