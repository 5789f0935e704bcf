import CongestionControl
import Logging
import MediaCore
import SDP
import Synchronization
import ViewerFanout
import WebRTC

/// Answers each WHEP viewer with its own `WebRTCVideoSender` (its own ICE, DTLS and SRTP) and
/// adds it to the shared fan-out once DTLS is done: its arrival asks the encoder for a keyframe
/// then, when the viewer can use it, so its first frame is about one frame interval away (a
/// keyframe asked for at the offer would be dropped before the connection is ready, and the
/// next one held back by the keyframe rate limit).
public final class WebRTCViewerFactory: WHEPSessionFactory {
    private let fanout: MultiViewerSink
    private let configuration: WebRTCSenderConfiguration
    private let makeTraceSink: @Sendable () -> BWETraceSink?
    private let logger: Logger

    /// `makeTraceSink` is asked once per viewer for where its congestion-controller updates go.
    public init(
        fanout: MultiViewerSink, configuration: WebRTCSenderConfiguration,
        makeTraceSink: @escaping @Sendable () -> BWETraceSink? = { nil }, logger: Logger
    ) {
        self.fanout = fanout
        self.configuration = configuration
        self.makeTraceSink = makeTraceSink
        self.logger = logger
    }

    public func answer(offer: String, resourceID: String, ended: @escaping @Sendable () -> Void) async throws -> WHEPAnswer {
        let sender: WebRTCVideoSender
        do {
            sender = try await WebRTCVideoSender.answering(
                offer: offer, configuration: configuration, traceSink: makeTraceSink(), logger: logger)
        } catch let error as WebRTCError {
            switch error {
            case .invalidDescription, .negotiation, .unsupportedFingerprint: throw WHEPOfferRejected(error.description)
            default: throw error
            }
        }
        let session = WebRTCViewerSession(sender: sender, fanout: fanout)
        session.start(resourceID: resourceID, logger: logger, ended: ended)
        return WHEPAnswer(sdp: sender.localDescription, session: session)
    }
}

/// One viewer: its sender and, once connected, its place in the fan-out.
final class WebRTCViewerSession: WHEPSession {
    let sender: WebRTCVideoSender
    private let fanout: MultiViewerSink
    private let viewer = Mutex<(id: Int?, closed: Bool)>((nil, false))

    init(sender: WebRTCVideoSender, fanout: MultiViewerSink) {
        self.sender = sender
        self.fanout = fanout
    }

    /// Through the sender's encoder control, which is the fan-out's steering for this viewer:
    /// rate-limited with everyone else's requests.
    func requestKeyframe() {
        sender.requestKeyframe()
    }

    func close() async {
        await end()
    }

    func applyICEFragment(_ fragment: SDPFragment) async throws -> SDPFragment? {
        do {
            return try await sender.applyRemoteFragment(fragment)
        } catch let error as WebRTCError {
            throw WHEPPatchRejected(error.description)
        }
    }

    /// Closing finishes the RTP sender (its queue, then RTCP BYE) and joins its thread: that
    /// waits, so it runs on a thread of its own rather than on the concurrency pool.
    private func end() async {
        let id = viewer.withLock { state in
            state.closed = true
            defer { state.id = nil }
            return state.id
        }
        if let id { fanout.removeViewer(id) }
        let sender = sender
        await MediaThread.run(name: "camrtp.viewer.close") { sender.close() }
    }

    /// Joins the fan-out once connected, then follows the connection: a failure (ICE, consent,
    /// DTLS, the connect timeout) or the peer's close_notify ends the viewer, and the server
    /// forgets it.
    func start(resourceID: String, logger: Logger, ended: @escaping @Sendable () -> Void) {
        Task {
            do {
                try await sender.waitUntilConnected()
                let joined = viewer.withLock { state -> Bool in
                    guard !state.closed else { return false }
                    state.id = fanout.addViewer(sender, metricsLabel: resourceID)
                    return state.id != nil
                }
                if joined {
                    for await event in sender.events {
                        guard case .stateChanged(let state) = event else { continue }
                        if state.isTerminal { break }
                    }
                }
            } catch {
                logger.info("viewer could not connect", metadata: ["resource": "\(resourceID)", "error": "\(error)"])
            }
            await end()
            ended()
        }
    }
}
