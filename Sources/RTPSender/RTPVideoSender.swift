import CongestionControl
import Logging
import MediaCore
import Synchronization
import Transport

/// Sends encoded VP8 frames as RTP (RFC 3550, RFC 7741), optionally protected with SRTP (RFC
/// 3711), and listens to the receiver: RTCP reports give RTT and loss, NACKs bring
/// retransmissions, PLI and FIR bring keyframes, transport-wide feedback and REMB drive the
/// congestion controller that sets the encoder's target and the pacer's pace.
///
/// The decisions are a `SendSession`'s; its I/O (sockets, SRTP, the clock) runs on the sender's
/// own thread (`camrtp.send`, see `SendLoop`); the encoder thread only queues frames. Sockets and SRTP open in `init`, so a port in use or a
/// bad key fails before anything starts.
///
/// As an `EncodedFrameSink`, `attach`, `consume` and `finish` are called one after another,
/// never at once, which makes the unchecked `Sendable` sound.
public final class RTPVideoSender: EncodedFrameSink, @unchecked Sendable {
    public let configuration: RTPSenderConfiguration
    /// The local RTP and RTCP ports (the same with rtcp-mux) of a UDP route; nil over a
    /// transport the application supplied.
    public let localPorts: (rtp: UInt16, rtcp: UInt16)?
    private let frames: FrameQueue
    private let loop: SendLoop
    private let logger: Logger
    private var thread: MediaThread?
    private let finalStatistics = Mutex(UDPTransportStatistics())

    /// Opens the sockets and the SRTP contexts; nothing is sent until the first frame.
    /// - Parameter traceSink: receives every congestion-controller update, on the send thread.
    public init(
        configuration: RTPSenderConfiguration, traceSink: (@Sendable (BWETraceRecord) -> Void)? = nil,
        logger: Logger = Logger(label: "camrtp.sender")
    ) throws(RTPSenderError) {
        let eventLoop: EventLoop
        do throws(SocketError) {
            eventLoop = try EventLoop()
        } catch {
            throw .socket(error)
        }
        frames = FrameQueue(waker: eventLoop.waker)
        loop = try SendLoop(configuration: configuration, frames: frames, eventLoop: eventLoop, traceSink: traceSink, logger: logger)
        self.configuration = configuration
        self.logger = logger
        if let udp = loop.pathway as? UDPPathway {
            localPorts = (udp.rtp.local.port, udp.rtcp.local.port)
            logger.info("RTP to \(udp.rtp.remote) from port \(udp.rtp.local.port), SSRC \(configuration.session.encodings[0].media.ssrc)")
        } else {
            localPorts = nil
        }
    }

    /// The media SSRC of the first encoding.
    public var ssrc: UInt32 { configuration.session.encodings[0].media.ssrc }

    /// Counters of the way out (packets, bytes, refused and dropped sends), as of the end of the
    /// stream: read them after `finish`.
    public var transportStatistics: UDPTransportStatistics { finalStatistics.withLock { $0 } }

    /// Takes the encoder's controls and the pipeline's reporter, and starts the send thread.
    public func attach(encoder: any EncoderControl, reporter: SinkReporter) {
        guard thread == nil else { return }
        loop.encoder = encoder
        loop.reporter = reporter
        thread = MediaThread(name: "camrtp.send") { [self] in
            loop.run()
            let statistics = loop.transportStatistics
            finalStatistics.withLock { $0 = statistics }
        }
    }

    /// Queues a frame for the send thread; throws the error that stopped it, if one did. Without
    /// an `attach` first, the thread starts with nobody to steer or report to.
    public func consume(_ frame: EncodedFrame) throws {
        if thread == nil { attach(encoder: NoEncoderControl(), reporter: .ignoring) }
        if let failure = frames.failure { throw failure }
        frames.push(frame)
    }

    /// Sends what is queued, then RTCP BYE, and stops the send thread.
    public func finish() throws {
        frames.close()
        thread?.join()
        if let failure = frames.failure { throw failure }
    }
}
