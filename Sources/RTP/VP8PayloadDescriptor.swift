/// The VP8 payload descriptor that starts every VP8 RTP payload (RFC 7741 §4.2).
///
/// ```
///       0 1 2 3 4 5 6 7
///      +-+-+-+-+-+-+-+-+
///      |X|R|N|S|R| PID | (REQUIRED)
///      +-+-+-+-+-+-+-+-+
/// X:   |I|L|T|K| RSV   | (OPTIONAL)
///      +-+-+-+-+-+-+-+-+
/// I:   |M| PictureID   | (OPTIONAL)
///      +-+-+-+-+-+-+-+-+
///      |   PictureID   | (present when M = 1)
///      +-+-+-+-+-+-+-+-+
/// L:   |   TL0PICIDX   | (OPTIONAL)
///      +-+-+-+-+-+-+-+-+
/// T/K: |TID|Y| KEYIDX  | (OPTIONAL)
///      +-+-+-+-+-+-+-+-+
/// ```
///
/// X is set exactly when one of I, L, T, K is. R bits are written as zero and ignored on input.
/// Fields wider than the wire allows are masked to their low bits when written.
public struct VP8PayloadDescriptor: WireFormat, Equatable, Sendable {
    /// The PictureID, in its 7-bit (M = 0) or 15-bit (M = 1) form.
    public enum PictureID: Equatable, Sendable {
        case short(UInt8)
        case long(UInt16)

        public var value: UInt16 {
            switch self {
            case .short(let value): UInt16(value & 0x7F)
            case .long(let value): value & 0x7FFF
            }
        }

        var serializedSize: Int {
            switch self {
            case .short: 1
            case .long: 2
            }
        }
    }

    /// The T fields: temporal layer index (TID, 2 bits) and layer sync (Y).
    public struct TemporalLayer: Equatable, Sendable {
        public var index: UInt8
        public var isLayerSync: Bool

        public init(index: UInt8, isLayerSync: Bool) {
            self.index = index
            self.isLayerSync = isLayerSync
        }
    }

    /// N: no other frame depends on this one.
    public var isNonReference: Bool
    /// S: the payload starts a VP8 partition.
    public var isStartOfPartition: Bool
    /// PID: the partition index, 3 bits.
    public var partitionIndex: UInt8
    public var pictureID: PictureID?
    /// TL0PICIDX (L).
    public var tl0PictureIndex: UInt8?
    public var temporalLayer: TemporalLayer?
    /// KEYIDX (K), 5 bits.
    public var keyIndex: UInt8?
    /// Input may set X with none of I, L, T, K; remembering it keeps `serializedSize` equal to
    /// the bytes parsed, so the payload after the descriptor is found correctly.
    private var hasEmptyExtensionByte = false

    public init(
        isNonReference: Bool = false, isStartOfPartition: Bool, partitionIndex: UInt8 = 0,
        pictureID: PictureID? = nil, tl0PictureIndex: UInt8? = nil, temporalLayer: TemporalLayer? = nil,
        keyIndex: UInt8? = nil
    ) {
        self.isNonReference = isNonReference
        self.isStartOfPartition = isStartOfPartition
        self.partitionIndex = partitionIndex
        self.pictureID = pictureID
        self.tl0PictureIndex = tl0PictureIndex
        self.temporalLayer = temporalLayer
        self.keyIndex = keyIndex
    }

    private var hasExtension: Bool {
        hasEmptyExtensionByte || pictureID != nil || tl0PictureIndex != nil || temporalLayer != nil || keyIndex != nil
    }

    private var hasTemporalOrKeyByte: Bool { temporalLayer != nil || keyIndex != nil }

    public var serializedSize: Int {
        guard hasExtension else { return 1 }
        return 2 + (pictureID?.serializedSize ?? 0) + (tl0PictureIndex == nil ? 0 : 1) + (hasTemporalOrKeyByte ? 1 : 0)
    }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(WireFormatError) -> Int {
        var writer = try ByteWriter(buffer, size: serializedSize, structure: "VP8 payload descriptor")
        writer.write(
            (hasExtension ? 0x80 : 0) | (isNonReference ? 0x20 : 0) | (isStartOfPartition ? 0x10 : 0) | partitionIndex & 0x07)
        guard hasExtension else { return writer.offset }
        let flags: UInt8 =
            (pictureID != nil ? 0x80 : 0) | (tl0PictureIndex != nil ? 0x40 : 0) | (temporalLayer != nil ? 0x20 : 0)
            | (keyIndex != nil ? 0x10 : 0)
        writer.write(flags)
        switch pictureID {
        case .short(let value)?: writer.write(value & 0x7F)
        case .long(let value)?: writer.write(UInt16(0x8000) | value & 0x7FFF)
        case nil: break
        }
        if let tl0PictureIndex { writer.write(tl0PictureIndex) }
        if hasTemporalOrKeyByte {
            let temporal: UInt8 = temporalLayer.map { ($0.index & 0x03) << 6 | ($0.isLayerSync ? 0x20 : 0) } ?? 0
            let key: UInt8 = (keyIndex ?? 0) & 0x1F
            writer.write(temporal | key)
        }
        return writer.offset
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireFormatError) {
        var reader = ByteReader(bytes, structure: "VP8 payload descriptor")
        let first = try reader.readUInt8()
        isNonReference = first & 0x20 != 0
        isStartOfPartition = first & 0x10 != 0
        partitionIndex = first & 0x07
        pictureID = nil
        tl0PictureIndex = nil
        temporalLayer = nil
        keyIndex = nil
        guard first & 0x80 != 0 else { return }
        let flags = try reader.readUInt8()
        hasEmptyExtensionByte = flags & 0xF0 == 0
        if flags & 0x80 != 0 {
            let high = try reader.readUInt8()
            pictureID = high & 0x80 != 0 ? .long(UInt16(high & 0x7F) << 8 | UInt16(try reader.readUInt8())) : .short(high)
        }
        if flags & 0x40 != 0 { tl0PictureIndex = try reader.readUInt8() }
        if flags & 0x30 != 0 {
            let byte = try reader.readUInt8()
            if flags & 0x20 != 0 { temporalLayer = TemporalLayer(index: byte >> 6, isLayerSync: byte & 0x20 != 0) }
            if flags & 0x10 != 0 { keyIndex = byte & 0x1F }
        }
    }
}
