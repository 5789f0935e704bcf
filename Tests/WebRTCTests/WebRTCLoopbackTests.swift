import Capture
import MediaCore
import RTP
import RTPSession
import SDP
import Synchronization
import TestSupport
import Testing
import VP8
import WebRTC

/// A `WebRTCVideoSender` offering and an in-process receiving peer answering, over 127.0.0.1:
/// ICE, DTLS-SRTP, frames that decode at the right size, PLI back as SRTCP, and garbage that
/// changes nothing.
@Suite("WebRTC: sender and receiver over loopback", .serialized)
struct WebRTCLoopbackTests {
    static let width = 320
    static let height = 240
    static let frameIntervalNs: Int64 = 33_333_333

    static var options: WebRTCTransportOptions { WebRTCTransportOptions(localAddresses: ["127.0.0.1"]) }

    /// Encodes test pattern frames on demand.
    final class Frames: @unchecked Sendable {
        let encoder: VP8Encoder
        let renderer = TestPatternRenderer(width: WebRTCLoopbackTests.width, height: WebRTCLoopbackTests.height)
        let pool = I420BufferPool()
        var index = 0

        init() throws {
            encoder = try VP8Encoder(
                settings: VP8EncoderSettings(bitrateKbps: 500, keyframes: .onRequest),
                format: VP8PictureFormat(width: WebRTCLoopbackTests.width, height: WebRTCLoopbackTests.height))
        }

        func next() throws -> EncodedFrame {
            while true {
                let buffer = try #require(pool.makeBuffer(width: WebRTCLoopbackTests.width, height: WebRTCLoopbackTests.height))
                renderer.render(index: index, into: buffer)
                let frame = VideoFrame(buffer: buffer, timestampNs: 1_000_000_000 + Int64(index) * WebRTCLoopbackTests.frameIntervalNs)
                index += 1
                if let encoded = try encoder.encode(frame) { return encoded }
            }
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: [Retransmission.rtx, .resend])
    func offerAnswerConnectAndDecode(_ retransmission: Retransmission) async throws {
        let frames = try Frames()
        var configuration = WebRTCSenderConfiguration(transport: Self.options)
        configuration.tuning.retransmission = retransmission
        let traced = Atomic(0)
        let sender = try await WebRTCVideoSender.offering(
            configuration: configuration, traceSink: { _ in traced.add(1, ordering: .relaxed) })
        #expect(sender.localDescription.contains("a=setup:actpass"))
        #expect(sender.localDescription.contains("a=fingerprint:sha-256 "))
        #expect(sender.localDescription.contains("a=sendonly"))
        #expect(sender.state == .new)

        let receiver = try await TestReceiver(offer: sender.localDescription, options: Self.options)
        #expect(receiver.answer.contains("a=setup:active"))
        try sender.acceptAnswer(receiver.answer)
        #expect(throws: WebRTCError.self) { try sender.acceptAnswer(receiver.answer) }
        #expect(sender.negotiated.payloadType == 96)
        #expect(sender.negotiated.localDTLSRole == .server)
        #expect((sender.negotiated.rtxPayloadType != nil) == (retransmission == .rtx))

        let control = ManualEncoderControl { frames.encoder.requestKeyframe() }
        sender.attach(encoder: control, reporter: .ignoring)
        // Before the connection is ready, frames are dropped.
        let early = try frames.next()
        #expect(early.isKeyframe)
        let withheld = try frames.next()
        #expect(!withheld.isKeyframe)
        try sender.consume(early)

        async let receiverReady: Void = receiver.waitUntilReady()
        try await sender.waitUntilConnected()
        try await receiverReady
        #expect(sender.state == .ready)
        #expect(control.keyframeRequests.load(ordering: .relaxed) >= 1)
        // A delta frame first is held back: the peer could not decode it.
        try sender.consume(withheld)

        var decoded = receiver.frames.makeAsyncIterator()
        for _ in 0..<10 { try sender.consume(try frames.next()) }
        for _ in 0..<10 {
            let frame = try #require(await decoded.next())
            #expect(frame.width == Self.width && frame.height == Self.height)
        }
        // The controller's updates reach the trace sink (serve's and publish's --trace-bwe).
        #expect(traced.load(ordering: .relaxed) > 0)

        // SRTCP back: a PLI reaches the sender and asks the encoder for a keyframe.
        let before = control.keyframeRequests.load(ordering: .relaxed)
        var events = sender.events.makeAsyncIterator()
        #expect(try receiver.sendPictureLossIndication(mediaSSRC: try ssrc(of: sender)))
        while let event = await events.next() {
            if event == .keyframeRequested(.pli) { break }
            // Frames keep the send loop turning while it waits.
            if case .targetBitrate = event { try sender.consume(try frames.next()) }
        }
        #expect(control.keyframeRequests.load(ordering: .relaxed) > before)

        let statistics = sender.statistics
        #expect(statistics.framesDroppedBeforeReady == 1)
        #expect(statistics.framesDroppedAwaitingKeyframe == 1)
        #expect(statistics.framesForwarded >= 10)
        #expect(statistics.connection.timeline.iceMs != nil && statistics.connection.timeline.dtlsMs != nil)
        #expect(statistics.connection.dtls.suite != nil)
        #expect(statistics.connection.rtcpReceived >= 1)

        try sender.finish()
        sender.close()
        #expect(sender.state == .closed)
        receiver.close()
        #expect(sender.statistics.transport?.packetsSent ?? 0 > 0)
    }

    /// A peer without simulcast answers an offer of three encodings with none of its lines: the
    /// highest encoding goes alone, the encoder is told to code it alone, the others' frames
    /// are dropped unseen, and the peer decodes every picture.
    @Test(.timeLimit(.minutes(2)))
    func aSimulcastOfferAnsweredWithoutSimulcastSendsTheTopEncodingAlone() async throws {
        let frames = try Frames()
        var configuration = WebRTCSenderConfiguration(transport: Self.options)
        configuration.simulcast = [
            SimulcastEncoding(rid: "q", encodingIndex: 0, maxWidth: 80, maxHeight: 60),
            SimulcastEncoding(rid: "h", encodingIndex: 1, maxWidth: 160, maxHeight: 120), SimulcastEncoding(rid: "f", encodingIndex: 2),
        ]
        let sender = try await WebRTCVideoSender.offering(configuration: configuration)
        #expect(sender.localDescription.contains("a=simulcast:send q;h;f\r\n"))
        #expect(!sender.localDescription.contains("a=ssrc:"))
        let receiver = try await TestReceiver(offer: sender.localDescription, options: Self.options)
        #expect(!receiver.answer.contains("a=simulcast"))
        try sender.acceptAnswer(receiver.answer)
        #expect(sender.negotiated.sentEncodings == [SentEncoding(encodingIndex: 2)])

        let control = ManualEncoderControl { frames.encoder.requestKeyframe() }
        sender.attach(encoder: control, reporter: .ignoring)
        async let receiverReady: Void = receiver.waitUntilReady()
        try await sender.waitUntilConnected()
        try await receiverReady
        #expect(control.activeEncodings.withLock { $0 } == [2])
        var decoded = receiver.frames.makeAsyncIterator()
        for _ in 0..<10 {
            // Each picture in every encoding, lowest first, as a simulcast encoder hands them over.
            var frame = try frames.next()
            for index in 0..<3 {
                frame.encodingIndex = index
                try sender.consume(frame)
            }
        }
        for _ in 0..<10 {
            let frame = try #require(await decoded.next())
            #expect(frame.width == Self.width && frame.height == Self.height)
        }
        #expect(sender.statistics.framesForwarded == 10)
        #expect(sender.statistics.framesDroppedAwaitingKeyframe == 0)

        try sender.finish()
        sender.close()
        receiver.close()
    }

    private func ssrc(of sender: WebRTCVideoSender) throws -> UInt32 {
        let line = try #require(sender.localDescription.split(separator: "\r\n").first { $0.hasPrefix("a=ssrc:") })
        return try #require(UInt32(line.dropFirst("a=ssrc:".count).prefix { $0 != " " }))
    }

    @Test(.timeLimit(.minutes(2)))
    func garbageDatagramsDoNotTrapOrStopTheStream() async throws {
        let frames = try Frames()
        let sender = try await WebRTCVideoSender.offering(configuration: WebRTCSenderConfiguration(transport: Self.options))
        let receiver = try await TestReceiver(offer: sender.localDescription, options: Self.options)
        try sender.acceptAnswer(receiver.answer)
        let control = ManualEncoderControl { frames.encoder.requestKeyframe() }
        sender.attach(encoder: control, reporter: .ignoring)
        async let receiverReady: Void = receiver.waitUntilReady()
        try await sender.waitUntilConnected()
        try await receiverReady

        var generator = SplitMix64(state: 7)
        var sent = 0
        for first: UInt8 in [0x01, 0x10, 0x16, 0x17, 0x30, 0x41, 0x60, 0x80, 0x81, 0x90, 0xBF, 0xC0, 0xFF] {
            for length in [1, 2, 13, 100, 1_500] {
                var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                bytes[0] = first
                if length > 1 && first == 0x81 { bytes[1] = 0xC9 }
                if receiver.sendRaw(bytes) { sent += 1 }
            }
        }
        #expect(sent > 0)
        var decoded = receiver.frames.makeAsyncIterator()
        for _ in 0..<5 { try sender.consume(try frames.next()) }
        for _ in 0..<5 {
            let frame = try #require(await decoded.next())
            #expect(frame.width == Self.width)
        }
        #expect(sender.state == .ready)
        let statistics = sender.statistics.connection
        #expect(statistics.rtpIgnored > 0)
        #expect(statistics.unclassified > 0)
        try sender.finish()
        sender.close()
        receiver.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func aMalformedAnswerIsAnErrorNotATrap() async throws {
        let sender = try await WebRTCVideoSender.offering(configuration: WebRTCSenderConfiguration(transport: Self.options))
        defer { sender.close() }
        for answer in ["", "v=0\r\n", "garbage\u{0}\u{1}", String(repeating: "a=x\r\n", count: 10_000)] {
            #expect(throws: WebRTCError.self) { try sender.acceptAnswer(answer) }
        }
        #expect(sender.state == .new)
        await #expect(throws: WebRTCError.self) {
            _ = try await WebRTCVideoSender.answering(offer: "v=0\r\nm=audio 9 RTP/AVP 0\r\n", configuration: WebRTCSenderConfiguration(transport: Self.options))
        }
    }
}

/// The answering side, as a WHEP endpoint uses it, the connect timeout, and a peer that hangs up.
@Suite("WebRTC: answering, timeouts and hang-ups", .serialized)
struct WebRTCAnsweringTests {
    static var options: WebRTCTransportOptions { WebRTCLoopbackTests.options }

    @Test(.timeLimit(.minutes(2)))
    func answersAViewersOfferAndStreams() async throws {
        let frames = try WebRTCLoopbackTests.Frames()
        let viewer = try await TestReceiver.offering(options: Self.options)
        #expect(viewer.localDescription.contains("a=recvonly"))
        let sender = try await WebRTCVideoSender.answering(offer: viewer.localDescription, configuration: WebRTCSenderConfiguration(transport: Self.options))
        #expect(sender.localDescription.contains("a=sendonly"))
        #expect(sender.localDescription.contains("a=setup:active"))
        #expect(sender.negotiated.localDTLSRole == .client)
        #expect(sender.negotiated.rtxPayloadType != nil)
        #expect(throws: WebRTCError.self) { try sender.acceptAnswer(viewer.localDescription) }
        try viewer.accept(answer: sender.localDescription)
        sender.attach(encoder: ManualEncoderControl { frames.encoder.requestKeyframe() }, reporter: .ignoring)

        async let viewerReady: Void = viewer.waitUntilReady()
        try await sender.waitUntilConnected()
        try await viewerReady
        var decoded = viewer.frames.makeAsyncIterator()
        for _ in 0..<5 { try sender.consume(try frames.next()) }
        for _ in 0..<5 {
            let frame = try #require(await decoded.next())
            #expect(frame.width == WebRTCLoopbackTests.width && frame.height == WebRTCLoopbackTests.height)
        }

        // The viewer hangs up (DTLS close_notify): the sender closes and refuses frames.
        var events = sender.events.makeAsyncIterator()
        viewer.close()
        while let event = await events.next(), event != .stateChanged(.closed) {}
        #expect(sender.state == .closed)
        #expect(throws: WebRTCError.self) { try sender.consume(try frames.next()) }
        sender.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func aPeerThatNeverAnswersChecksTimesOut() async throws {
        var configuration = WebRTCSenderConfiguration(transport: Self.options)
        configuration.transport.connectTimeoutNs = 300_000_000
        let sender = try await WebRTCVideoSender.offering(configuration: configuration)
        defer { sender.close() }
        // A trickling peer with no candidates yet, gone before it checks anything: ICE waits, so
        // only the timeout can end it.
        let viewer = try await TestReceiver(offer: sender.localDescription, options: Self.options)
        viewer.close()
        let answer = viewer.localDescription.split(separator: "\r\n").filter {
            !$0.hasPrefix("a=candidate") && !$0.hasPrefix("a=end-of-candidates")
        }.joined(separator: "\r\n") + "\r\na=ice-options:trickle\r\n"
        try sender.acceptAnswer(answer)
        await #expect {
            try await sender.waitUntilConnected()
        } throws: { error in
            guard case WebRTCError.connection(.timeout(_, let seconds)) = error else { return false }
            return seconds == 0.3
        }
        guard case .failed(.timeout) = sender.state else {
            Issue.record("state \(sender.state)")
            return
        }
    }
}
