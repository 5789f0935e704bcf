import RTP

/// The RFC 8285 one-byte IDs the streams write, by extension; nil leaves one out.
public struct HeaderExtensionIDs: Sendable, Hashable {
    /// `http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time`, stamped as packets leave.
    public var absoluteSendTime: UInt8?
    /// `urn:3gpp:video-orientation` (CVO), on the last packet of a frame when needed.
    public var videoOrientation: UInt8?
    /// The transport-wide sequence number (draft-holmer-rmcat-transport-wide-cc-extensions-01),
    /// stamped on every packet as it leaves.
    public var transportWideSequenceNumber: UInt8?
    /// `http://www.webrtc.org/experiments/rtp-hdrext/abs-capture-time`, on the first packet of a
    /// frame when a receiver could not work the capture time out from the last one sent.
    public var absoluteCaptureTime: UInt8?
    /// `http://www.webrtc.org/experiments/rtp-hdrext/playout-delay`, on every packet when the
    /// tuning asks for a playout delay.
    public var playoutDelay: UInt8?
    /// `urn:ietf:params:rtp-hdrext:sdes:mid` (RFC 9143 §15): the configuration's MID on every
    /// packet, media and RTX.
    public var mid: UInt8?
    /// `urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id` (RFC 8852 §3.1): the encoding's RID on
    /// every media packet.
    public var rtpStreamID: UInt8?
    /// `urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id` (RFC 8852 §3.2): the RID on
    /// every RTX packet (repairs, padding, probes).
    public var repairedRTPStreamID: UInt8?

    public init(
        absoluteSendTime: UInt8? = nil, videoOrientation: UInt8? = nil, transportWideSequenceNumber: UInt8? = nil,
        absoluteCaptureTime: UInt8? = nil, playoutDelay: UInt8? = nil, mid: UInt8? = nil, rtpStreamID: UInt8? = nil,
        repairedRTPStreamID: UInt8? = nil
    ) {
        self.absoluteSendTime = absoluteSendTime
        self.videoOrientation = videoOrientation
        self.transportWideSequenceNumber = transportWideSequenceNumber
        self.absoluteCaptureTime = absoluteCaptureTime
        self.playoutDelay = playoutDelay
        self.mid = mid
        self.rtpStreamID = rtpStreamID
        self.repairedRTPStreamID = repairedRTPStreamID
    }

    /// The IDs in use, for validation.
    var all: [UInt8] {
        [
            absoluteSendTime, videoOrientation, transportWideSequenceNumber, absoluteCaptureTime, playoutDelay, mid, rtpStreamID,
            repairedRTPStreamID,
        ].compactMap { $0 }
    }
}

/// The payload types of RED (RFC 2198) and of ULPFEC (RFC 5109) inside it, when the two ends
/// agreed on forward error correction.
public struct FECPayloadTypes: Sendable, Equatable {
    public var red: UInt8
    public var ulpfec: UInt8

    public init(red: UInt8, ulpfec: UInt8) {
        self.red = red
        self.ulpfec = ulpfec
    }
}

/// One encoding's RTP streams (RFC 7656 §3.7: the source stream and its redundancy stream): the
/// media stream's SSRC and starting points, the SSRC of its RTX stream when repairs go as RTX,
/// and with simulcast the encoding's RID (RFC 8851) that its packets carry.
public struct EncodingStreams: Sendable, Equatable {
    /// The frames these streams carry: those whose `EncodedFrame.encodingIndex` is this; nil:
    /// the entry's place in `SendSessionConfiguration.encodings`.
    public var encodingIndex: Int?
    public var media: RTPSessionParameters
    public var rtxSSRC: UInt32?
    /// Written when `HeaderExtensionIDs.rtpStreamID` is set (and as the repaired RID on RTX).
    public var rid: RTPStreamID?

    public init(encodingIndex: Int? = nil, media: RTPSessionParameters, rtxSSRC: UInt32? = nil, rid: RTPStreamID? = nil) {
        self.encodingIndex = encodingIndex
        self.media = media
        self.rtxSSRC = rtxSSRC
        self.rid = rid
    }
}

/// Everything a `SendSession` is built from: how it behaves (`tuning`), and what the two ends
/// agreed on for the wire: the encodings' streams, payload types and header extensions.
public struct SendSessionConfiguration: Sendable {
    public var tuning: SenderTuning
    /// The encodings sent, one per simulcast layer, each with its own streams; one without
    /// simulcast. A frame's `encodingIndex` picks its entry; a frame of an encoding with no entry
    /// (one the peer declined) is not sent.
    public var encodings: [EncodingStreams]
    public var payloadType: UInt8
    /// RTX's payload type (RFC 4588 §8.6, `apt` to `payloadType`); needed when
    /// `tuning.retransmission` is `rtx`, as is every encoding's `rtxSSRC`.
    public var rtxPayloadType: UInt8?
    public var extensions: HeaderExtensionIDs
    /// RED and ULPFEC as agreed; with it, media and FEC packets leave as RED on their first send
    /// (repairs carry the media packet itself), and `tuning.fec` decides how much FEC goes.
    public var fec: FECPayloadTypes?
    /// The m= section's `a=mid`, written when `extensions.mid` is set.
    public var mid: MediaIdentification?

    public init(
        tuning: SenderTuning = SenderTuning(), encodings: [EncodingStreams] = [EncodingStreams(media: .random())],
        payloadType: UInt8 = 96, rtxPayloadType: UInt8? = nil, extensions: HeaderExtensionIDs = HeaderExtensionIDs(),
        fec: FECPayloadTypes? = nil, mid: MediaIdentification? = nil
    ) {
        self.tuning = tuning
        self.encodings = encodings
        self.payloadType = payloadType
        self.rtxPayloadType = rtxPayloadType
        self.extensions = extensions
        self.fec = fec
        self.mid = mid
    }

    /// Checks what would stop the session: the encodings, their indexes, SSRCs and RIDs, RTX's
    /// values, extension IDs, and an MTU that must carry the largest header (the longest RID's)
    /// with every extension, the VP8 descriptor (with a temporal layer's fields), a byte of
    /// payload, `protectionOverhead` (the SRTP tag) and the RTX prefix; with abs-capture-time,
    /// room for a frame's first packet to carry it and still have a byte of payload left at the
    /// split's worst.
    public func validate(protectionOverhead: Int) throws(SendSessionError) {
        guard !encodings.isEmpty else { throw .noEncodings }
        let ssrcs = encodings.flatMap { [$0.media.ssrc] + ($0.rtxSSRC.map { [$0] } ?? []) }
        if let duplicate = ssrcs.first(where: { ssrc in ssrcs.filter { $0 == ssrc }.count > 1 }) {
            throw .duplicateSSRC(duplicate)
        }
        let indexes = encoderIndexes
        if let bad = indexes.first(where: { index in index < 0 || indexes.filter { $0 == index }.count > 1 }) {
            throw .invalidEncodingIndex(bad)
        }
        let rids = encodings.compactMap(\.rid)
        if let duplicate = rids.first(where: { rid in rids.filter { $0 == rid }.count > 1 }) { throw .duplicateRID(duplicate.rid) }
        if tuning.retransmission == .rtx {
            guard let rtxPayloadType, rtxPayloadType != payloadType else { throw .retransmissionWithoutRTXPayloadType }
            guard encodings.allSatisfy({ $0.rtxSSRC != nil }) else { throw .retransmissionWithoutRTXSSRC }
        }
        if let fec {
            let types = [payloadType, fec.red, fec.ulpfec] + (rtxPayloadType.map { [$0] } ?? [])
            guard Set(types).count == types.count else { throw .fecPayloadTypesClash }
        }
        var largestHeader = 0
        for encoding in encodings {
            let stream = try RTPStream(
                parameters: encoding.media, payloadType: payloadType, extensions: extensions, playoutDelay: tuning.playoutDelay,
                mid: mid, rid: encoding.rid)
            largestHeader = max(largestHeader, stream.headerSize + stream.largestExtraHeaderSize)
        }
        let minimum = largestHeader + VP8Payloader.layeredDescriptorSize + 1 + protectionOverhead
            + retransmissionOverhead + fecOverhead(headerSize: largestHeader)
        guard tuning.mtu >= minimum else { throw .mtuTooSmall(mtu: tuning.mtu, minimum: minimum) }
    }

    /// The encoder's index of each entry of `encodings`: its `encodingIndex`, else its place.
    var encoderIndexes: [Int] { encodings.enumerated().map { position, encoding in encoding.encodingIndex ?? position } }

    /// Whether repairs (and padding, probes, keep-alives) go as RTX rather than on the media SSRC.
    var usesRTX: Bool { tuning.retransmission == .rtx }

    /// Bytes an RTX packet adds to the original it carries (its original sequence number).
    var retransmissionOverhead: Int { usesRTX ? RTXPacket.originalSequenceNumberSize : 0 }

    /// Bytes a media packet leaves free with FEC: the RED header it gains on the wire, and what an
    /// ULPFEC packet protecting it adds beyond it (its extensions and the ULPFEC headers).
    func fecOverhead(headerSize: Int) -> Int {
        guard fec != nil else { return 0 }
        return REDHeader.primaryHeaderSize + (headerSize - RTPHeader.fixedSize) + ULPFECHeader.maximumSize
    }
}

/// Why a send session cannot be built as configured.
public enum SendSessionError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidExtensionID(UInt8)
    /// Two header extensions were given the same ID.
    case duplicateExtensionID(UInt8)
    /// The MTU leaves no room for one byte of payload after the headers and the SRTP tag.
    case mtuTooSmall(mtu: Int, minimum: Int)
    case noEncodings
    /// Two encodings were given the same `encodingIndex`, or one a negative index.
    case invalidEncodingIndex(Int)
    /// Two encodings were given the same RID (RFC 8851 §4: a RID names one stream).
    case duplicateRID(String)
    /// Two streams were given the same SSRC (RFC 3550 §8: one SSRC per source).
    case duplicateSSRC(UInt32)
    case retransmissionWithoutRTXPayloadType
    case retransmissionWithoutRTXSSRC
    /// RED, ULPFEC, VP8 and RTX must each have their own payload type.
    case fecPayloadTypesClash

    public var description: String {
        switch self {
        case .invalidExtensionID(let id):
            "RTP header extension ID \(id) is outside 1...14"
        case .duplicateExtensionID(let id):
            "RTP header extension ID \(id) is used twice"
        case .mtuTooSmall(let mtu, let minimum):
            "MTU \(mtu) is too small: these RTP headers need at least \(minimum) bytes"
        case .noEncodings:
            "a send session needs at least one encoding"
        case .invalidEncodingIndex(let index):
            "encoding index \(index) is negative or given to two encodings"
        case .duplicateRID(let rid):
            "RID \(rid) is given to two encodings"
        case .duplicateSSRC(let ssrc):
            "SSRC \(ssrc) is used by two streams"
        case .retransmissionWithoutRTXPayloadType:
            "RTX needs a payload type of its own, other than the media's"
        case .retransmissionWithoutRTXSSRC:
            "RTX needs an SSRC for every encoding"
        case .fecPayloadTypesClash:
            "RED and ULPFEC need payload types of their own, other than VP8's and RTX's"
        }
    }
}
