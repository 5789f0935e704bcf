import CongestionControl
import Logging
import MediaCore
import RTPSender
import SDP
import Synchronization
import Transport

/// The part of a `WebRTCVideoSender` that the connection's state handler reaches: it builds the
/// RTP sender when the connection is ready, gates frames (none before ready, none of an encoding
/// not sent, a keyframe first in each), and turns what the RTP sender reports into events and
/// statistics.
final class SenderCore: Sendable {
    struct State {
        var negotiated: NegotiatedVideo?
        weak var connection: WebRTCConnection?
        var rtpSender: RTPVideoSender?
        var reporter = SinkReporter.ignoring
        /// The encodings the answer left to send; frames of others are dropped unseen.
        var sentEncodings: Set<Int> = []
        /// The sent encodings whose first keyframe has not come yet: each starts on its own.
        var awaitingKeyframe: Set<Int> = []
        var forwarded = 0
        var droppedBeforeReady = 0
        var droppedAwaitingKeyframe = 0
        var firstFrameSentNs: Int64?
        var latest: SenderStatistics?
        var transport: UDPTransportStatistics?
        /// Why frames are refused: the connection went down or the sender did not start.
        var failure: WebRTCError?
        var finished = false
    }

    let negotiation: SenderNegotiation
    let control: ObservedEncoderControl
    let events: AsyncStream<WebRTCSenderEvent>
    let state = Mutex(State())
    private let continuation: AsyncStream<WebRTCSenderEvent>.Continuation
    private let traceSink: BWETraceSink?
    private let logger: Logger

    init(negotiation: SenderNegotiation, traceSink: BWETraceSink? = nil, logger: Logger) {
        self.negotiation = negotiation
        self.traceSink = traceSink
        self.logger = logger
        let (events, continuation) = AsyncStream.makeStream(of: WebRTCSenderEvent.self, bufferingPolicy: .bufferingNewest(256))
        self.events = events
        self.continuation = continuation
        control = ObservedEncoderControl { kbps in continuation.yield(.targetBitrate(kbps: kbps)) }
    }

    /// On the connection's thread. The event goes out after the state took effect, so that whoever
    /// sees `.ready` finds the RTP sender running and whoever sees `.closed` has frames refused.
    func connectionStateChanged(_ connectionState: WebRTCConnectionState) {
        defer { continuation.yield(.stateChanged(connectionState)) }
        switch connectionState {
        case .ready where state.withLock({ $0.rtpSender != nil }):
            // Back after an ICE restart: the peer lost what was sent meanwhile.
            control.requestKeyframe()
            continuation.yield(.keyframeRequested(.application))
        case .ready:
            startSender()
        case .failed(let failure):
            state.withLock { if $0.failure == nil { $0.failure = .connection(failure) } }
        case .closed:
            state.withLock { if $0.failure == nil { $0.failure = .closed } }
        default:
            break
        }
    }

    /// Builds the RTP sender with the negotiated values and the DTLS keys, starts its thread and
    /// asks the encoder for the keyframe the peer needs first.
    private func startSender() {
        let (connection, negotiated) = state.withLock { ($0.connection, $0.negotiated) }
        guard let connection, let negotiated, let keys = connection.srtpKeys else { return }
        let configuration = negotiation.senderConfiguration(
            for: negotiated, outboundKey: keys.outbound, inboundKey: keys.inbound, transport: connection)
        let sender: RTPVideoSender
        do {
            sender = try RTPVideoSender(configuration: configuration, traceSink: traceSink, logger: logger)
        } catch {
            logger.error("RTP sender did not start: \(error)")
            state.withLock { $0.failure = .connection(.sender("\(error)")) }
            return
        }
        sender.attach(encoder: control, reporter: SinkReporter { [weak self] event in self?.observe(event) })
        let sentEncodings = Set(negotiated.sentEncodings.map(\.encodingIndex))
        state.withLock { state in
            state.rtpSender = sender
            state.sentEncodings = sentEncodings
            state.awaitingKeyframe = sentEncodings
        }
        // Encodings the answer declined cost CPU for nothing.
        control.setActiveEncodings(sentEncodings)
        control.requestKeyframe()
        continuation.yield(.keyframeRequested(.application))
    }

    /// What the RTP sender reports, on its thread: passed on to the pipeline, and kept.
    private func observe(_ event: SinkEvent) {
        let reporter = state.withLock { state in
            switch event {
            case .frameDelivered(_, _, _, let deliveredNs):
                if state.firstFrameSentNs == nil { state.firstFrameSentNs = deliveredNs }
            case .statistics(let statistics):
                state.latest = statistics
            case .overheadSent, .keyframeRequested:
                break
            }
            return state.reporter
        }
        if case .keyframeRequested(let source) = event { continuation.yield(.keyframeRequested(source)) }
        reporter.report(event)
    }

    func attach(encoder: any EncoderControl, reporter: SinkReporter) {
        control.setUpstream(encoder)
        let ready = state.withLock { state in
            state.reporter = reporter
            return state.rtpSender != nil && !state.awaitingKeyframe.isEmpty
        }
        if ready { control.requestKeyframe() }
    }

    /// Forwards `frame` once ready, from its encoding's first keyframe on, if the answer left its
    /// encoding to send; throws when the connection is down.
    func consume(_ frame: EncodedFrame) throws {
        let (sender, failure): (RTPVideoSender?, WebRTCError?) = state.withLock { state in
            if let failure = state.failure { return (nil, failure) }
            guard !state.finished, let sender = state.rtpSender else {
                state.droppedBeforeReady += 1
                return (nil, nil)
            }
            guard state.sentEncodings.contains(frame.encodingIndex) else { return (nil, nil) }
            if state.awaitingKeyframe.contains(frame.encodingIndex) {
                guard frame.isKeyframe else {
                    state.droppedAwaitingKeyframe += 1
                    return (nil, nil)
                }
                state.awaitingKeyframe.remove(frame.encodingIndex)
            }
            state.forwarded += 1
            return (sender, nil)
        }
        if let failure { throw failure }
        try sender?.consume(frame)
    }

    /// Sends what is queued and RTCP BYE; later frames are dropped.
    func finish() throws {
        let sender = state.withLock { state -> RTPVideoSender? in
            guard !state.finished else { return nil }
            state.finished = true
            return state.rtpSender
        }
        guard let sender else { return }
        defer { state.withLock { $0.transport = sender.transportStatistics } }
        try sender.finish()
    }

    func endEvents() {
        continuation.finish()
    }
}
