import MediaCore
import RTP

/// One outgoing RTP stream (RFC 3550 §5.1): it owns the SSRC, the sequence numbers, the RTP clock
/// and the header-extension map, and writes the header of every packet. The payloader only
/// fills in what follows the header.
///
/// The extensions stamped at send time (abs-send-time, transport-wide sequence number) are
/// written as zeros; the header reports where their data sits so that the send loop can patch
/// them as each packet leaves. The playout delay, the MID and the RID go on every packet (the
/// MID and RID as libwebrtc's `always_send_mid_and_rid` has it, not only until acknowledged),
/// abs-capture-time on the first packet of the frames that carry it, CVO on the last. Writing a
/// header allocates nothing: the fixed elements are built once, a frame's capture time on the
/// stack, and the header value is reused.
struct RTPStream {
    /// Where a written header put the values patched at send time, and how long it is.
    struct WrittenHeader {
        var length: Int
        var sequenceNumber: UInt16
        var absoluteSendTimeOffset: Int?
        var transportSequenceNumberOffset: Int?
    }

    let ssrc: UInt32
    let payloadType: UInt8
    let clock: RTPClock
    private(set) var nextSequenceNumber: UInt16
    /// Bytes of a header with the extensions every packet carries.
    let headerSize: Int
    /// Bytes the orientation element adds to a header that carries it.
    let orientationCost: Int
    /// Bytes abs-capture-time adds to a frame's first packet that carries it.
    let captureTimeCost: Int
    /// Bytes both add to a one-packet frame that carries both: the block's padding can make it
    /// more than the sum.
    let captureTimeAndOrientationCost: Int

    private var header: RTPHeader
    private let extensions: HeaderExtensionIDs
    /// The elements every packet carries, in order: abs-send-time, transport-wide sequence number,
    /// playout delay, MID, RID (those that are on).
    private let everyPacketElements: [RTPHeaderExtensionElement]
    /// Where the RID element starts in every header, its length, and the byte that relabels it as
    /// the repaired RID on RTX (nil: no repaired-RID ID, the element is blanked instead).
    private let ridRelabel: (offset: Int, length: Int, repairedHeaderByte: UInt8?)?
    /// CVO elements indexed by rotation / 90°; empty when CVO is off.
    private let orientationElements: [RTPHeaderExtensionElement]

    /// `playoutDelay`, `mid` and `rid` go on every packet when `extensions` has their IDs.
    init(
        parameters: RTPSessionParameters, payloadType: UInt8, extensions: HeaderExtensionIDs, playoutDelay: PlayoutDelay? = nil,
        mid: MediaIdentification? = nil, rid: RTPStreamID? = nil
    ) throws(SendSessionError) {
        let ids = extensions.all
        for id in ids where !RTPHeaderExtensionElement.validIDs.contains(id) { throw .invalidExtensionID(id) }
        if let duplicate = ids.first(where: { id in ids.filter { $0 == id }.count > 1 }) { throw .duplicateExtensionID(duplicate) }
        let captureTimeSample: RTPHeaderExtensionElement?
        let absoluteSendTimeElement, transportSequenceNumberElement, playoutDelayElement, midElement, ridElement: RTPHeaderExtensionElement?
        do throws(WireFormatError) {
            absoluteSendTimeElement = try extensions.absoluteSendTime.map { id throws(WireFormatError) in
                try AbsoluteSendTime(value: 0).element(id: id)
            }
            transportSequenceNumberElement = try extensions.transportWideSequenceNumber.map { id throws(WireFormatError) in
                try TransportWideSequenceNumber(value: 0).element(id: id)
            }
            playoutDelayElement = try playoutDelay.flatMap { delay throws(WireFormatError) in
                try extensions.playoutDelay.map { id throws(WireFormatError) in try delay.element(id: id) }
            }
            orientationElements = try extensions.videoOrientation.map { id throws(WireFormatError) in
                try VideoRotation.allCases.map { rotation throws(WireFormatError) in
                    try VideoOrientation(rotation: rotation).element(id: id)
                }
            } ?? []
            midElement = try mid.flatMap { mid throws(WireFormatError) in
                try extensions.mid.map { id throws(WireFormatError) in try mid.element(id: id) }
            }
            ridElement = try rid.flatMap { rid throws(WireFormatError) in
                try extensions.rtpStreamID.map { id throws(WireFormatError) in try rid.element(id: id) }
            }
            captureTimeSample = try extensions.absoluteCaptureTime.map { id throws(WireFormatError) in
                try AbsoluteCaptureTime(captureTimestamp: 0, estimatedCaptureClockOffset: 0).element(id: id)
            }
        } catch {
            preconditionFailure("extension IDs were validated above: \(error)")
        }
        ssrc = parameters.ssrc
        self.payloadType = payloadType
        self.extensions = extensions
        clock = RTPClock(offset: parameters.timestampOffset)
        nextSequenceNumber = parameters.initialSequenceNumber
        header = RTPHeader(payloadType: payloadType, sequenceNumber: 0, timestamp: 0, ssrc: parameters.ssrc)
        everyPacketElements = [absoluteSendTimeElement, transportSequenceNumberElement, playoutDelayElement, midElement, ridElement]
            .compactMap { $0 }
        header.extensionElements.reserveCapacity(everyPacketElements.count + 2)
        header.extensionElements.append(contentsOf: everyPacketElements)
        let base = header
        ridRelabel = ridElement.flatMap { element in
            base.byteOffset(ofExtensionData: element.id).map { dataOffset in
                (dataOffset - 1, element.serializedSize, extensions.repairedRTPStreamID.map { $0 << 4 | UInt8(element.count - 1) })
            }
        }
        let size = base.serializedSize
        func cost(_ extra: [RTPHeaderExtensionElement?]) -> Int {
            var sized = base
            sized.extensionElements += extra.compactMap { $0 }
            return sized.serializedSize - size
        }
        headerSize = size
        orientationCost = cost([orientationElements.first])
        captureTimeCost = cost([captureTimeSample])
        captureTimeAndOrientationCost = cost([captureTimeSample, orientationElements.first])
    }

    /// The most a header can carry beyond `headerSize`: a one-packet frame with every extension.
    var largestExtraHeaderSize: Int { captureTimeAndOrientationCost }

    /// The bytes a header carrying these adds beyond `headerSize`.
    func extraHeaderSize(captureTime: Bool, orientation: Bool) -> Int {
        switch (captureTime, orientation) {
        case (false, false): 0
        case (false, true): orientationCost
        case (true, false): captureTimeCost
        case (true, true): captureTimeAndOrientationCost
        }
    }

    /// Writes the header of the next packet at the start of `buffer` and takes its sequence number.
    /// `captureTime` is written only when abs-capture-time has an ID, `orientation` only with CVO;
    /// `payloadType` names another format than the media's on the stream (ULPFEC).
    mutating func writeHeader(
        timestampNs: Int64, marker: Bool, orientation: VideoRotation?, captureTime: AbsoluteCaptureTime? = nil,
        payloadType: UInt8? = nil,
        into buffer: UnsafeMutableRawBufferPointer
    ) -> WrittenHeader {
        header.payloadType = payloadType ?? self.payloadType
        header.sequenceNumber = nextSequenceNumber
        header.timestamp = clock.rtpTimestamp(forNs: timestampNs)
        header.marker = marker
        header.extensionElements.removeAll(keepingCapacity: true)
        header.extensionElements.append(contentsOf: everyPacketElements)
        if let captureTime, let id = extensions.absoluteCaptureTime {
            do throws(WireFormatError) {
                header.extensionElements.append(try captureTime.element(id: id))
            } catch {
                preconditionFailure("the abs-capture-time ID was validated when the stream was made: \(error)")
            }
        }
        if let orientation, !orientationElements.isEmpty {
            header.extensionElements.append(orientationElements[orientation.degrees / 90])
        }
        let length: Int
        do throws(WireFormatError) {
            length = try header.serialize(into: buffer)
        } catch {
            preconditionFailure("the store's slots hold a whole packet, header included: \(error)")
        }
        nextSequenceNumber &+= 1
        return WrittenHeader(
            length: length, sequenceNumber: header.sequenceNumber,
            absoluteSendTimeOffset: extensions.absoluteSendTime.flatMap { header.byteOffset(ofExtensionData: $0) },
            transportSequenceNumberOffset: extensions.transportWideSequenceNumber.flatMap { header.byteOffset(ofExtensionData: $0) })
    }

    /// Turns a copy of one of this stream's packets, made into RTX (`RTXPacket`, which keeps the
    /// header extension block where it was), into the repair stream's: the RID element becomes
    /// the RepairedRtpStreamId with the same data (RFC 8852 §3.2), by rewriting its ID; without
    /// an ID for that, it becomes padding (RFC 8285 §4.2), since the RID would name the RTX
    /// stream as the media. The MID stays: both streams belong to the same m= section.
    func relabelAsRepair(_ packet: UnsafeMutableRawBufferPointer) {
        guard let (offset, length, repairedHeaderByte) = ridRelabel else { return }
        if let repairedHeaderByte {
            packet[offset] = repairedHeaderByte
        } else {
            UnsafeMutableRawBufferPointer(rebasing: packet[offset..<offset + length])
                .initializeMemory(as: UInt8.self, repeating: 0)
        }
    }

    /// Whether a frame's last packet carries the orientation: on keyframes, when it changed, and
    /// whenever it is not 0° (libwebrtc's rule), and only with CVO negotiated.
    func sendsOrientation(_ rotation: VideoRotation, previous: VideoRotation?, isKeyframe: Bool) -> Bool {
        !orientationElements.isEmpty && (isKeyframe || rotation != previous || rotation != .deg0)
    }

    /// Whether frames can carry abs-capture-time at all.
    var sendsCaptureTime: Bool { extensions.absoluteCaptureTime != nil }
}
