import DTLS
import Synchronization

/// Sorts what the ICE agent receives on the 5-tuple by first byte (RFC 7983 section 7; libnice
/// has taken the STUN already): DTLS to the connection's thread, SRTCP to the RTP sender's
/// feedback queue, and the rest dropped and counted. Runs on the agent's thread.
final class DatagramRouter: Sendable {
    typealias FeedbackReceiver = @Sendable (UnsafeRawBufferPointer) -> Void

    private let inbox: ConnectionInbox
    private let feedback = Mutex<FeedbackReceiver?>(nil)
    private let media = Mutex<FeedbackReceiver?>(nil)
    let rtcpDelivered = Atomic<UInt64>(0)
    /// SRTCP that came before the sender listened.
    let rtcpUnclaimed = Atomic<UInt64>(0)
    /// RTP from the peer when nobody receives media (a send-only connection).
    let rtpIgnored = Atomic<UInt64>(0)
    /// ZRTP, TURN channel data, unknown first bytes, empty datagrams.
    let unclassified = Atomic<UInt64>(0)

    init(inbox: ConnectionInbox) {
        self.inbox = inbox
    }

    func setFeedbackReceiver(_ receiver: @escaping FeedbackReceiver) {
        feedback.withLock { $0 = receiver }
    }

    func setMediaReceiver(_ receiver: @escaping FeedbackReceiver) {
        media.withLock { $0 = receiver }
    }

    func route(_ datagram: UnsafeRawBufferPointer) {
        switch PacketDemultiplexer.classify(datagram) {
        case .dtls:
            inbox.push(.dtls(Array(datagram)))
        case .rtcp:
            if let receiver = feedback.withLock({ $0 }) {
                // Counted first: what the sender does with it may be seen before `receiver` returns.
                rtcpDelivered.add(1, ordering: .relaxed)
                receiver(datagram)
            } else {
                rtcpUnclaimed.add(1, ordering: .relaxed)
            }
        case .rtp:
            if let receiver = media.withLock({ $0 }) {
                receiver(datagram)
            } else {
                rtpIgnored.add(1, ordering: .relaxed)
            }
        case .stun, .zrtp, .turnChannel, nil:
            unclassified.add(1, ordering: .relaxed)
        }
    }
}
