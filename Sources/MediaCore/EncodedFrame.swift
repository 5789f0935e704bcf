/// One compressed frame as the encoder produced it, carrying the capture time and rotation of
/// the picture it came from so that the packetizer can stamp RTP and CVO from them.
public struct EncodedFrame: Sendable {
    /// The VP8 bitstream of the frame (RFC 6386).
    public var data: [UInt8]
    public var width: Int
    public var height: Int
    /// Capture time of the source picture, nanoseconds on `CLOCK_MONOTONIC`.
    public var timestampNs: Int64
    public var rotation: VideoRotation
    public var isKeyframe: Bool
    /// No later frame references this one, so a receiver may lose it harmlessly (RFC 7741 N bit).
    public var isDroppable: Bool
    /// Which encoding of a simulcast set the frame belongs to, lowest first; 0 without simulcast.
    public var encodingIndex: Int
    /// The frame's temporal layer when the encoder codes several (RFC 7741 §4.2 TID and Y);
    /// nil with one.
    public var temporalLayer: TemporalLayer?

    /// A frame's place among temporal layers: layer `index` (0 is the base) is decodable from
    /// the frames of its own and lower layers alone, and a layer-sync frame depends on the base
    /// layer only, so a receiver may start taking layer `index` from it.
    public struct TemporalLayer: Sendable, Equatable {
        public var index: Int
        public var isLayerSync: Bool

        public init(index: Int, isLayerSync: Bool) {
            self.index = index
            self.isLayerSync = isLayerSync
        }
    }

    public init(
        data: [UInt8], width: Int, height: Int, timestampNs: Int64,
        rotation: VideoRotation, isKeyframe: Bool, isDroppable: Bool, encodingIndex: Int = 0,
        temporalLayer: TemporalLayer? = nil
    ) {
        self.data = data
        self.width = width
        self.height = height
        self.timestampNs = timestampNs
        self.rotation = rotation
        self.isKeyframe = isKeyframe
        self.isDroppable = isDroppable
        self.encodingIndex = encodingIndex
        self.temporalLayer = temporalLayer
    }
}
