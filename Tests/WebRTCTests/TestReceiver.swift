import MediaCore
import RTCP
import RTP
import SDP
import Synchronization
import TestSupport
import Transport
import WebRTC

/// A receiving WebRTC peer for tests: a `WebRTCConnection` that answers a sender's offer with
/// `recvonly` (an RTX SSRC of its own makes the negotiator accept RTX), unprotects its SRTP with the DTLS keys, reassembles VP8 frames and decodes them
/// with libvpx; it can send SRTCP back (PLI).
final class TestReceiver: @unchecked Sendable {
    struct Decoded: Sendable {
        let width: Int
        let height: Int
    }

    let connection: WebRTCConnection
    /// Our SDP: the answer to a sender's offer, or our offer to an answering sender.
    let localDescription: String
    var answer: String { localDescription }
    let frames: AsyncStream<Decoded>
    private let continuation: AsyncStream<Decoded>.Continuation
    private let negotiator: VideoNegotiator
    private let offer: SessionDescription?
    private let lock = Mutex(())
    private var negotiatedVideo: NegotiatedVideo?
    private var inbound: SRTPSession?
    private var outbound: SRTPSession?
    private var depacketizer = VP8Depacketizer()
    private let decoder: VP8TestDecoder
    static let ssrc: UInt32 = 0xFEED_BEEF
    private(set) var undecodable = 0

    var negotiated: NegotiatedVideo { lock.withLock { _ in negotiatedVideo! } }

    /// Answers a sender's offer and starts connecting (ICE controlled).
    convenience init(offer: String, options: WebRTCTransportOptions) async throws {
        try await self.init(role: .controlled, options: options, remoteOffer: try SessionDescription(parsing: offer))
    }

    /// Offers to receive (ICE controlling); `accept(answer:)` starts connecting.
    static func offering(options: WebRTCTransportOptions) async throws -> TestReceiver {
        try await TestReceiver(role: .controlling, options: options, remoteOffer: nil)
    }

    private init(role: ICERoleChoice, options: WebRTCTransportOptions, remoteOffer: SessionDescription?) async throws {
        connection = try WebRTCConnection(iceRole: role == .controlling ? .controlling : .controlled, options: options)
        _ = try await connection.gatherCandidates()
        negotiator = VideoNegotiator(
            sender: LocalVideoSender(
                ssrc: Self.ssrc, rtxSSRC: Self.ssrc &+ 1, cname: "receiver", feedback: [.nack, .pli, .fir, .transportCC, .remb],
                extensions: [
                    HeaderExtensionMapping(id: 2, uri: RTPHeaderExtensionURI.absoluteSendTime),
                    HeaderExtensionMapping(id: 3, uri: RTPHeaderExtensionURI.transportWideSequenceNumber),
                ], direction: .recvonly),
            transport: connection.localTransport, origin: Origin(sessionID: 2, address: .ipv4("127.0.0.1")))
        decoder = try VP8TestDecoder()
        (frames, continuation) = AsyncStream.makeStream(of: Decoded.self)
        if let remoteOffer {
            let result = try negotiator.makeAnswer(to: remoteOffer)
            localDescription = result.sessionDescription.serialized()
            negotiatedVideo = result.video
            offer = nil
        } else {
            let made = negotiator.makeOffer()
            localDescription = made.serialized()
            offer = made
        }
        connection.startReceivingMedia { [weak self] packet in self?.receive(packet) }
        if let video = negotiatedVideo { try connection.start(remote: video.remote, localRole: video.localDTLSRole) }
    }

    private enum ICERoleChoice { case controlling, controlled }

    /// Takes the answering sender's SDP and starts connecting.
    func accept(answer: String) throws {
        let video = try negotiator.acceptAnswer(try SessionDescription(parsing: answer), to: offer!)
        lock.withLock { _ in negotiatedVideo = video }
        try connection.start(remote: video.remote, localRole: video.localDTLSRole)
    }

    /// Waits for DTLS, then sets up SRTP both ways.
    func waitUntilReady() async throws {
        let keys = try await connection.waitUntilReady()
        let inbound = try SRTPSession(key: keys.inbound, direction: .inbound)
        let outbound = try SRTPSession(key: keys.outbound, direction: .outbound)
        lock.withLock { _ in
            self.inbound = inbound
            self.outbound = outbound
        }
    }

    /// Sends a PLI for `mediaSSRC` as SRTCP.
    func sendPictureLossIndication(mediaSSRC: UInt32) throws -> Bool {
        let compound = RTCPCompoundPacket(packets: [.pictureLossIndication(RTCPPictureLossIndication(senderSSRC: Self.ssrc, mediaSSRC: mediaSSRC))])
        var buffer = compound.serialized() + [UInt8](repeating: 0, count: SRTPSession.maximumTrailerLength)
        let plainLength = buffer.count - SRTPSession.maximumTrailerLength
        let length = try lock.withLock { _ in
            try buffer.withUnsafeMutableBytes { try outbound!.protectRTCP($0, length: plainLength) }
        }
        return buffer.withUnsafeBytes { connection.send(UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
    }

    /// Sends `bytes` as they are, to see the sender survive them.
    func sendRaw(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { connection.send($0) }
    }

    private func receive(_ packet: UnsafeRawBufferPointer) {
        lock.withLock { _ in
            guard let inbound else { return }
            var bytes = Array(packet)
            guard let length = try? bytes.withUnsafeMutableBytes({ try inbound.unprotectRTP($0, length: packet.count) }) else { return }
            bytes.removeLast(bytes.count - length)
            // RTX and padding-only probes carry another payload type.
            guard bytes.count > 12, bytes[1] & 0x7F == negotiatedVideo?.payloadType else { return }
            guard let frame = try? depacketizer.push(bytes) else { return }
            if let picture = try? decoder.decode(frame.data) {
                continuation.yield(Decoded(width: picture.width, height: picture.height))
            } else {
                undecodable += 1
            }
        }
    }

    func close() {
        connection.close()
        continuation.finish()
    }
}

/// An encoder the test drives by hand, counting the keyframe requests the sender makes, keeping
/// the encodings it was told to code, and asking for the padding probe a test sets.
final class ManualEncoderControl: EncoderControl, Sendable {
    let keyframeRequests = Atomic<Int>(0)
    let activeEncodings = Mutex<Set<Int>?>(nil)
    let paddingProbe = Atomic<Int>(0)
    let paddingProbeFailures = Atomic<Int>(0)
    let onKeyframeRequest: @Sendable () -> Void

    init(onKeyframeRequest: @escaping @Sendable () -> Void) {
        self.onKeyframeRequest = onKeyframeRequest
    }

    func requestKeyframe() {
        keyframeRequests.add(1, ordering: .relaxed)
        onKeyframeRequest()
    }

    func requestKeyframe(encodingIndex: Int) {
        requestKeyframe()
    }

    func setTargetBitrate(kbps: Int) {}
    func setNetworkCongested(_ congested: Bool) {}

    func setActiveEncodings(_ encodings: Set<Int>) {
        activeEncodings.withLock { $0 = encodings }
    }

    var paddingProbeKbps: Int { paddingProbe.load(ordering: .relaxed) }

    func paddingProbeFailed() {
        paddingProbeFailures.add(1, ordering: .relaxed)
    }
}
