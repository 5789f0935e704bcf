import CongestionControl
import Logging
import MediaCore
import SDP
import Synchronization

/// A VP8 video sender over WebRTC: one `WebRTCConnection` (ICE, DTLS-SRTP, rtcp-mux, BUNDLE)
/// carrying an `RTPVideoSender` with what the peer accepted: its payload types, extension ids
/// (transport-cc, abs-send-time), RTX and feedback. What a WHIP publisher, a WHEP endpoint or a
/// conferencing backend embeds, next to the plain RTP sender.
///
/// Two ways in: `offering` (our offer in `localDescription`, then `acceptAnswer`) and
/// `answering` (the peer's offer in, our answer in `localDescription`). Then
/// `waitUntilConnected()`, and frames through the `EncodedFrameSink` methods: frames before the
/// connection is ready are dropped and counted, and the first one sent is a keyframe, asked of
/// the encoder when the connection becomes ready. `close()` ends it.
public final class WebRTCVideoSender: EncodedFrameSink, Sendable {
    /// Our SDP: the offer when offering, the answer when answering.
    public let localDescription: String
    public let connection: WebRTCConnection
    public let configuration: WebRTCSenderConfiguration
    /// State changes, keyframe requests and target rates, as they happen; finishes at `close`.
    public var events: AsyncStream<WebRTCSenderEvent> { core.events }

    private let core: SenderCore
    private let offer: SessionDescription?
    /// Our offer or answer, whose first section ICE fragments describe.
    private let localSession: SessionDescription
    private let negotiator: VideoNegotiator

    private init(
        core: SenderCore, connection: WebRTCConnection, configuration: WebRTCSenderConfiguration, negotiator: VideoNegotiator,
        localSession: SessionDescription, offer: SessionDescription?
    ) {
        self.core = core
        self.connection = connection
        self.configuration = configuration
        self.negotiator = negotiator
        self.localSession = localSession
        localDescription = localSession.serialized()
        self.offer = offer
    }

    deinit {
        close()
    }

    // MARK: Factories

    /// Gathers candidates and writes our offer (`localDescription`): sendonly VP8 with RTX,
    /// `a=setup:actpass`, our ICE values and fingerprint, and the configuration's simulcast
    /// encodings. ICE is controlling. Call `acceptAnswer` with the peer's answer next; then
    /// `negotiated.sentEncodings` says which encodings go. `traceSink` gets every
    /// congestion-controller update once media flows.
    public static func offering(
        configuration: WebRTCSenderConfiguration, traceSink: BWETraceSink? = nil,
        logger: Logger = Logger(label: "camrtp.webrtc")
    ) async throws -> WebRTCVideoSender {
        try configuration.validateSimulcast()
        let core = SenderCore(negotiation: SenderNegotiation(configuration: configuration), traceSink: traceSink, logger: logger)
        let connection = try makeConnection(role: .controlling, configuration: configuration, core: core, logger: logger)
        do {
            _ = try await connection.gatherCandidates()
        } catch {
            connection.close()
            throw error
        }
        let negotiator = VideoNegotiator(
            sender: core.negotiation.localVideoSender, transport: connection.gatheredTransport, origin: newOrigin())
        let offer = negotiator.makeOffer()
        return WebRTCVideoSender(
            core: core, connection: connection, configuration: configuration, negotiator: negotiator, localSession: offer, offer: offer)
    }

    /// Answers the peer's offer (`localDescription` is the answer): the first VP8 video section,
    /// its payload types and extension ids, RTX and feedback when offered, `a=setup:active`
    /// for an actpass offer. ICE is controlled; checks start at once.
    public static func answering(
        offer: String, configuration: WebRTCSenderConfiguration, traceSink: BWETraceSink? = nil,
        logger: Logger = Logger(label: "camrtp.webrtc")
    ) async throws -> WebRTCVideoSender {
        let remote: SessionDescription
        do {
            remote = try SessionDescription(parsing: offer)
        } catch {
            throw WebRTCError.invalidDescription(error)
        }
        let core = SenderCore(negotiation: SenderNegotiation(configuration: configuration), traceSink: traceSink, logger: logger)
        let connection = try makeConnection(role: .controlled, configuration: configuration, core: core, logger: logger)
        do {
            _ = try await connection.gatherCandidates()
            let negotiator = VideoNegotiator(
                sender: core.negotiation.localVideoSender, transport: connection.gatheredTransport, origin: newOrigin())
            let answer: NegotiatedAnswer
            do {
                answer = try negotiator.makeAnswer(to: remote)
            } catch {
                throw WebRTCError.negotiation(error)
            }
            core.state.withLock { $0.negotiated = answer.video }
            try connection.start(remote: answer.video.remote, localRole: answer.video.localDTLSRole)
            return WebRTCVideoSender(
                core: core, connection: connection, configuration: configuration, negotiator: negotiator,
                localSession: answer.sessionDescription, offer: nil)
        } catch {
            connection.close()
            throw error
        }
    }

    private static func makeConnection(
        role: ICERoleChoice, configuration: WebRTCSenderConfiguration, core: SenderCore, logger: Logger
    ) throws(WebRTCError) -> WebRTCConnection {
        let connection = try WebRTCConnection(
            iceRole: role == .controlling ? .controlling : .controlled, options: configuration.transport, logger: logger
        ) { [weak core] state in core?.connectionStateChanged(state) }
        core.state.withLock { $0.connection = connection }
        return connection
    }

    private enum ICERoleChoice { case controlling, controlled }

    /// A fresh `o=` line: a random session id below 2^62 (RFC 8829 section 5.2.1).
    private static func newOrigin() -> Origin {
        Origin(sessionID: .random(in: 1..<(1 << 62)), sessionVersion: 2, address: .ipv4("127.0.0.1"))
    }

    // MARK: Negotiation

    /// Checks the peer's answer against our offer and starts ICE checks and then DTLS.
    public func acceptAnswer(_ sdp: String) throws {
        guard let offer else { throw WebRTCError.unexpectedAnswer("this sender answered an offer; it has no offer of its own") }
        guard core.state.withLock({ $0.negotiated == nil }) else { throw WebRTCError.unexpectedAnswer("an answer was accepted already") }
        let answer: SessionDescription
        do {
            answer = try SessionDescription(parsing: sdp)
        } catch {
            throw WebRTCError.invalidDescription(error)
        }
        let video: NegotiatedVideo
        do {
            video = SenderNegotiation.sendable(try negotiator.acceptAnswer(answer, to: offer))
        } catch {
            throw WebRTCError.negotiation(error)
        }
        core.state.withLock { $0.negotiated = video }
        try connection.start(remote: video.remote, localRole: video.localDTLSRole)
    }

    /// What both sides agreed on: always there for an answering sender; for an offering one,
    /// from `acceptAnswer` on (reading it before is a programming error).
    public var negotiated: NegotiatedVideo! { core.state.withLock { $0.negotiated } }

    // MARK: Trickle ICE and ICE restart (RFC 9725 section 4.3)

    /// Our ICE values now, as a PATCH body describes them: credentials and every candidate
    /// gathered so far, with `a=end-of-candidates` once gathering is done.
    public var localICEFragment: SDPFragment {
        SDPFragment(describing: connection.localTransport, in: localSession)
    }

    /// Proposes an ICE restart from our side (a WHIP client's): returns the fragment to PATCH,
    /// new credentials with our candidates. Nothing changes until `acceptRestartAnswer` takes
    /// the endpoint's answer; an endpoint that refuses leaves the connection as it was.
    public func proposeICERestart() -> SDPFragment {
        SDPFragment(describing: connection.proposeRestart(), in: localSession)
    }

    /// The endpoint's answer to our restart: its new credentials and candidates.
    public func acceptRestartAnswer(_ fragment: SDPFragment) async throws {
        guard let credentials = fragment.iceCredentials else {
            throw WebRTCError.unexpectedAnswer("the ICE restart's answer has no a=ice-ufrag and a=ice-pwd")
        }
        try await connection.acceptRestart(credentials, candidates: fragment.candidates, endOfCandidates: fragment.isEndOfCandidates)
    }

    /// A fragment the peer PATCHed (a WHEP client's): with credentials other than the current
    /// ones it restarts ICE and returns ours to answer with (RFC 9725 section 4.3.2); otherwise
    /// its candidates are added (trickle, section 4.3.1) and nil is returned.
    public func applyRemoteFragment(_ fragment: SDPFragment) async throws -> SDPFragment? {
        if let credentials = fragment.iceCredentials, credentials != connection.remoteICECredentials {
            let local = try await connection.answerRestart(
                credentials, candidates: fragment.candidates, endOfCandidates: fragment.isEndOfCandidates)
            return SDPFragment(describing: local, in: localSession)
        }
        try connection.addRemoteCandidates(fragment.candidates, endOfCandidates: fragment.isEndOfCandidates)
        return nil
    }

    // MARK: State

    public var state: WebRTCConnectionState { connection.state }

    /// Returns once ICE and DTLS are done and the RTP sender runs; throws the failure, the
    /// connect timeout or `closed`.
    public func waitUntilConnected() async throws {
        _ = try await connection.waitUntilReady()
        if let failure = core.state.withLock({ $0.failure }) { throw failure }
    }

    /// Asks the encoder for a keyframe (an operator's or application's request).
    public func requestKeyframe() {
        core.control.requestKeyframe()
    }

    public var statistics: WebRTCSenderStatistics {
        let state = core.state.withLock { $0 }
        return WebRTCSenderStatistics(
            connection: connection.statistics, framesForwarded: state.forwarded, framesDroppedBeforeReady: state.droppedBeforeReady,
            framesDroppedAwaitingKeyframe: state.droppedAwaitingKeyframe, firstFrameSentNs: state.firstFrameSentNs,
            sender: state.latest, transport: state.transport)
    }

    // MARK: EncodedFrameSink

    public func attach(encoder: any EncoderControl, reporter: SinkReporter) {
        core.attach(encoder: encoder, reporter: reporter)
    }

    public func consume(_ frame: EncodedFrame) throws {
        try core.consume(frame)
    }

    /// Sends what is queued and RTCP BYE; the connection stays open until `close`.
    public func finish() throws {
        try core.finish()
    }

    /// Finishes the RTP sender if it runs, closes the connection (DTLS close_notify, ICE) and
    /// ends `events`. Safe to call more than once.
    public func close() {
        try? core.finish()
        connection.close()
        core.endEvents()
    }
}
