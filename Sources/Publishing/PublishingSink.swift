import MediaCore
import Synchronization
import WebRTC

/// The sink `publish`'s pipeline keeps for its whole run while sessions come and go: it hands
/// frames to the current session's `WebRTCVideoSender` and drops them, counted, while there is
/// none. A sender that fails does not stop the pipeline: its frames are dropped until the
/// publisher puts another in its place.
///
/// Without a session the encoder is told the network is congested, so frames are dropped
/// before encoding (as `congestion`) and a reconnecting camera costs capture only; a new
/// session clears that, and its sender asks for the keyframe it starts with.
public final class PublishingSink: EncodedFrameSink, Sendable {
    private struct State {
        var sender: WebRTCVideoSender?
        var encoder: (any EncoderControl)?
        var reporter = SinkReporter.ignoring
        var framesWithoutSession = 0
        var finished = false
    }

    private let state = Mutex(State())

    public init() {}

    /// Frames that came while no session took them: between sessions, or from a failed sender.
    public var framesWithoutSession: Int { state.withLock { $0.framesWithoutSession } }

    /// Puts `sender` in place (nil: none) and returns the one it replaces, for the caller to close.
    @discardableResult
    public func use(_ sender: WebRTCVideoSender?) -> WebRTCVideoSender? {
        let (previous, encoder, reporter) = state.withLock { state in
            defer { state.sender = sender }
            return (state.sender, state.encoder, state.reporter)
        }
        guard let encoder else { return previous }
        if let sender {
            sender.attach(encoder: encoder, reporter: reporter)
            encoder.setNetworkCongested(false)
        } else {
            encoder.setNetworkCongested(true)
        }
        return previous
    }

    public func attach(encoder: any EncoderControl, reporter: SinkReporter) {
        let sender = state.withLock { state in
            state.encoder = encoder
            state.reporter = reporter
            return state.sender
        }
        if let sender {
            sender.attach(encoder: encoder, reporter: reporter)
        } else {
            encoder.setNetworkCongested(true)
        }
    }

    public func consume(_ frame: EncodedFrame) throws {
        guard let sender = state.withLock({ $0.finished ? nil : $0.sender }) else {
            state.withLock { $0.framesWithoutSession += 1 }
            return
        }
        do {
            try sender.consume(frame)
        } catch {
            // The connection went down; the publisher sees it and replaces the sender.
            state.withLock { $0.framesWithoutSession += 1 }
        }
    }

    /// Sends what the current sender has queued and its RTCP BYE; later frames are dropped.
    public func finish() throws {
        let sender = state.withLock { state in
            state.finished = true
            return state.sender
        }
        try sender?.finish()
    }
}
