import DTLS
import ICE
import MediaCore

/// What the connection's thread acts on, in arrival order.
enum ConnectionInput {
    /// A datagram the demultiplexer sorted as DTLS, copied off the agent's thread.
    case dtls([UInt8])
    case ice(ICEEvent)
    /// The peer's description is applied: run the handshake with this session.
    case start(DTLSSessionBox)
}

/// Hands a `DTLSSession` (used from one thread at a time) over to the connection's thread; the
/// caller keeps no reference.
struct DTLSSessionBox: @unchecked Sendable {
    let session: DTLSSession
}

/// The connection thread's queue: inputs from the ICE agent's thread and the caller, a stop flag,
/// and the wait for the next input or deadline. DTLS datagrams are bounded (a handshake needs a
/// few); more are dropped and counted. Everything is touched under `condition`'s lock.
final class ConnectionInbox: @unchecked Sendable {
    static let maximumQueuedDatagrams = 32

    private let condition = ThreadCondition()
    private var inputs: [ConnectionInput] = []
    private var queuedDatagrams = 0
    private var stopping = false
    private var overflow: UInt64 = 0

    func push(_ input: ConnectionInput) {
        condition.withLock {
            guard !stopping else { return }
            if case .dtls = input {
                guard queuedDatagrams < Self.maximumQueuedDatagrams else {
                    overflow += 1
                    return
                }
                queuedDatagrams += 1
            }
            inputs.append(input)
            condition.signal()
        }
    }

    func stop() {
        condition.withLock {
            stopping = true
            condition.signal()
        }
    }

    /// Waits until there is input, `deadlineNs` passes (nil: no deadline) or `stop`; returns the
    /// inputs taken and whether to stop.
    func take(waitingUntilNs deadlineNs: Int64?) -> (inputs: [ConnectionInput], stop: Bool) {
        condition.withLock {
            while inputs.isEmpty && !stopping {
                if let deadlineNs {
                    if !condition.wait(untilNs: deadlineNs) { break }
                } else {
                    condition.wait()
                }
            }
            let taken = inputs
            inputs.removeAll(keepingCapacity: true)
            queuedDatagrams = 0
            return (taken, stopping)
        }
    }

    /// DTLS datagrams dropped because the queue was full.
    var overflowCount: UInt64 { condition.withLock { overflow } }
}
