import ICE
import SDP
import TestSupport
import Testing
import WebRTC

/// Trickle ICE and ICE restart between a `WebRTCVideoSender` and the in-process receiver, over
/// 127.0.0.1, with the fragments a WHIP or WHEP PATCH carries.
@Suite("WebRTC: trickle ICE and ICE restart", .serialized)
struct WebRTCRestartTests {
    /// Connects a sender (offering) to a receiver (answering) and decodes `count` frames.
    private func connect(
        options: WebRTCTransportOptions = WebRTCLoopbackTests.options
    ) async throws -> (WebRTCVideoSender, TestReceiver, WebRTCLoopbackTests.Frames) {
        let frames = try WebRTCLoopbackTests.Frames()
        let sender = try await WebRTCVideoSender.offering(configuration: WebRTCSenderConfiguration(transport: options))
        let receiver = try await TestReceiver(offer: sender.localDescription, options: WebRTCLoopbackTests.options)
        try sender.acceptAnswer(receiver.answer)
        sender.attach(encoder: ManualEncoderControl { frames.encoder.requestKeyframe() }, reporter: .ignoring)
        return (sender, receiver, frames)
    }

    /// Feeds frames at 30 fps (a keyframe every tenth, so a loss on the way cannot stall the
    /// decoder for long) until the receiver has decoded `count`.
    private func decode(_ count: Int, from sender: WebRTCVideoSender, _ receiver: TestReceiver, _ frames: WebRTCLoopbackTests.Frames) async throws {
        let feeder = Task {
            var index = 0
            while !Task.isCancelled {
                if index % 10 == 9 { frames.encoder.requestKeyframe() }
                try sender.consume(try frames.next())
                index += 1
                try await Task.sleep(for: .milliseconds(33))
            }
        }
        defer { feeder.cancel() }
        var decoded = receiver.frames.makeAsyncIterator()
        for _ in 0..<count {
            let frame = try #require(await decoded.next())
            #expect(frame.width == WebRTCLoopbackTests.width)
        }
    }

    /// The sender offers without waiting for gathering (`gatheringWaitNs` 0; a STUN server that
    /// never answers, a bound socket nobody reads, keeps gathering going for seconds): the offer
    /// says trickle and has no end of candidates; the candidates then reach the receiver as a
    /// PATCH fragment would carry them, and the two connect.
    @Test(.timeLimit(.minutes(2)))
    func candidatesTrickledAfterTheOfferConnect() async throws {
        let silentSTUNServer = try LoopbackSocket(ipv6: false)
        var options = WebRTCLoopbackTests.options
        options.gatheringWaitNs = 0
        options.stunServer = STUNServerAddress(host: "127.0.0.1", port: silentSTUNServer.endpoint.port)
        let (sender, receiver, frames) = try await connect(options: options)
        defer {
            sender.close()
            receiver.close()
        }
        let offer = try SessionDescription(parsing: sender.localDescription)
        #expect(offer.media.first?.iceOptions == ["trickle"] || offer.iceOptions == ["trickle"])
        #expect(offer.media.first?.endOfCandidates == false)

        var events = sender.connection.iceEvents.makeAsyncIterator()
        while let event = await events.next(), event != .gatheringDone {}
        let fragment = sender.localICEFragment
        #expect(fragment.isEndOfCandidates)
        #expect(!fragment.candidates.isEmpty)
        #expect(fragment.sections.first?.mid == "0")
        // Through text, as a PATCH body goes.
        let received = try SDPFragment(parsing: fragment.serialized())
        let taken = try receiver.connection.addRemoteCandidates(received.candidates, endOfCandidates: received.isEndOfCandidates)
        #expect(taken == received.candidates.count)

        async let receiverReady: Void = receiver.waitUntilReady()
        try await sender.waitUntilConnected()
        try await receiverReady
        try await decode(5, from: sender, receiver, frames)
    }

    /// An ICE restart from the sender's side, as `publish` does it: new credentials both ways
    /// through fragments, checks again, and the same DTLS association and RTP stream go on (no
    /// new handshake, frames keep decoding).
    @Test(.timeLimit(.minutes(2)))
    func anICERestartKeepsDTLSAndTheStream() async throws {
        let (sender, receiver, frames) = try await connect()
        defer {
            sender.close()
            receiver.close()
        }
        async let receiverReady: Void = receiver.waitUntilReady()
        try await sender.waitUntilConnected()
        try await receiverReady
        try await decode(5, from: sender, receiver, frames)
        let before = sender.statistics.connection
        let oldCredentials = try #require(sender.localICEFragment.iceCredentials)

        // A proposal the endpoint refuses (422) changes nothing: the old credentials stay.
        let refused = sender.proposeICERestart()
        #expect(refused.iceCredentials != oldCredentials)
        #expect(sender.localICEFragment.iceCredentials == oldCredentials)
        try await decode(3, from: sender, receiver, frames)

        let offered = try SDPFragment(parsing: sender.proposeICERestart().serialized())
        let newCredentials = try #require(offered.iceCredentials)
        #expect(newCredentials != oldCredentials)
        #expect(!offered.candidates.isEmpty)
        // The receiver restarts too and answers with its own new values.
        let answered = try await receiver.connection.answerRestart(
            newCredentials, candidates: offered.candidates, endOfCandidates: offered.isEndOfCandidates)
        let answer = SDPFragment(describing: answered, in: try SessionDescription(parsing: receiver.answer))
        #expect(answer.iceCredentials != receiver.connection.remoteICECredentials)
        try await sender.acceptRestartAnswer(try SDPFragment(parsing: answer.serialized()))
        #expect(sender.connection.remoteICECredentials == answer.iceCredentials)

        try await decode(10, from: sender, receiver, frames)
        let after = sender.statistics.connection
        #expect(after.state == .ready)
        #expect(after.timeline.dtlsConnectedNs == before.timeline.dtlsConnectedNs)
        #expect(after.dtls.retransmissions == before.dtls.retransmissions)
    }

    /// The answering side, as `serve` meets a viewer's restart PATCH: new credentials restart and
    /// return ours; the same credentials only add candidates.
    @Test(.timeLimit(.minutes(2)))
    func anAnsweringSenderRestartsOnNewCredentialsOnly() async throws {
        let receiver = try await TestReceiver.offering(options: WebRTCLoopbackTests.options)
        let frames = try WebRTCLoopbackTests.Frames()
        let sender = try await WebRTCVideoSender.answering(
            offer: receiver.localDescription, configuration: WebRTCSenderConfiguration(transport: WebRTCLoopbackTests.options))
        defer {
            sender.close()
            receiver.close()
        }
        sender.attach(encoder: ManualEncoderControl { frames.encoder.requestKeyframe() }, reporter: .ignoring)
        try receiver.accept(answer: sender.localDescription)
        async let receiverReady: Void = receiver.waitUntilReady()
        try await sender.waitUntilConnected()
        try await receiverReady
        try await decode(3, from: sender, receiver, frames)

        let current = try #require(sender.connection.remoteICECredentials)
        let sameCredentials = SDPFragment(sections: [
            SDPFragment.Section(mediaLine: "video 9 UDP/TLS/RTP/SAVPF 96", mid: "0", iceCredentials: current),
        ])
        #expect(try await sender.applyRemoteFragment(sameCredentials) == nil)

        let proposed = receiver.connection.proposeRestart()
        let fragment = SDPFragment(describing: proposed, in: try SessionDescription(parsing: receiver.localDescription))
        let answer = try #require(try await sender.applyRemoteFragment(fragment))
        let ours = try #require(answer.iceCredentials)
        try await receiver.connection.acceptRestart(ours, candidates: answer.candidates, endOfCandidates: answer.isEndOfCandidates)
        try await decode(10, from: sender, receiver, frames)
        #expect(sender.state == .ready)
    }
}
