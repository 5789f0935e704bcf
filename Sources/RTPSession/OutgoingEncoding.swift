import MediaCore

/// One encoding as the session keeps it: its media stream's packetizer (SSRC, sequence numbers,
/// RTP clock, PictureIDs), its history, its RTX stream, what answers its keyframe requests, and
/// the counts its sender reports carry.
struct OutgoingEncoding {
    /// An RTX stream (RFC 4588 §4): its own SSRC and payload type, its own sequence space.
    struct RTX {
        var payloadType: UInt8
        var ssrc: UInt32
    }

    var packetizer: FramePacketizer
    var history = PacketHistory()
    /// nil when repairs go on the media SSRC.
    let rtx: RTX?
    private var nextRTXSequenceNumber: UInt16
    var keyframes: KeyframeRequestPolicy
    /// The media packets the next FEC packets protect.
    var fecGroup = ULPFECGroup()
    /// RTP packets and payload octets on the media SSRC, for its SRs (RFC 3550 §6.4.1).
    var senderPacketCount = 0
    var senderOctetCount = 0
    /// Packets and wire bytes of the frame leaving now.
    private var currentFramePackets = 0
    private var currentFrameBytes = 0

    init(packetizer: FramePacketizer, rtx: RTX?, firstRTXSequenceNumber: UInt16, keyframeRequestIntervalNs: Int64) {
        self.packetizer = packetizer
        self.rtx = rtx
        nextRTXSequenceNumber = firstRTXSequenceNumber
        keyframes = KeyframeRequestPolicy(minimumIntervalNs: keyframeRequestIntervalNs)
    }

    var ssrc: UInt32 { packetizer.stream.ssrc }

    /// The RTX stream and the sequence number of its next packet (numbered one by one, as Pion's
    /// gaps were a bug, pion/interceptor#329); nil without RTX.
    mutating func takeRTXSequenceNumber() -> (payloadType: UInt8, ssrc: UInt32, sequenceNumber: UInt16)? {
        guard let rtx else { return nil }
        defer { nextRTXSequenceNumber &+= 1 }
        return (rtx.payloadType, rtx.ssrc, nextRTXSequenceNumber)
    }

    /// Counts a media packet that left; at the frame's last packet, the frame's delivery report.
    mutating func mediaPacketLeft(_ entry: PacketStore.Entry, wireBytes: Int, sentNs: Int64) -> SinkEvent? {
        currentFramePackets += 1
        currentFrameBytes += wireBytes
        guard entry.endsFrame else { return nil }
        defer {
            currentFramePackets = 0
            currentFrameBytes = 0
        }
        return .frameDelivered(timestampNs: entry.captureTimeNs, packets: currentFramePackets, bytes: currentFrameBytes, deliveredNs: sentNs)
    }

    /// Whether `ssrc` is this encoding's media or RTX stream.
    func owns(ssrc: UInt32) -> Bool {
        ssrc == self.ssrc || ssrc == rtx?.ssrc
    }
}
