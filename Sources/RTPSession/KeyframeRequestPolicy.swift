/// Turns keyframe requests (PLI, RFC 4585 §6.3.1; FIR, RFC 5104 §4.3.1) into keyframes without
/// letting a flood of them turn every frame into one.
///
/// - A request that arrives within one RTT of a keyframe leaving was sent before that keyframe
///   could reach the receiver: the keyframe answers it.
/// - Otherwise it is passed to the encoder at once, unless one was passed less than
///   `minimumIntervalNs` ago (libwebrtc: 300 ms); then it waits until the interval is over, and
///   any further requests meanwhile collapse into it. A keyframe leaving in the meantime
///   answers it.
/// - A FIR repeated with the same sequence number from the same requester is the same request
///   (RFC 5104 §4.3.1.2) and counts once.
struct KeyframeRequestPolicy {
    enum Outcome: Equatable {
        /// Ask the encoder for a keyframe now.
        case forward
        /// Held until `nextDeadlineNs`, or answered by a keyframe before then.
        case deferred
        /// Already answered (a recent keyframe, a request already pending, a repeated FIR).
        case absorbed
    }

    /// The requesters whose last FIR sequence number is remembered.
    static let maximumFIRRequesters = 32

    let minimumIntervalNs: Int64
    private var lastForwardNs: Int64?
    private var lastKeyframeSentNs: Int64?
    private var pending = false
    private var lastFIRSequenceNumbers: [(requester: UInt32, sequenceNumber: UInt8)] = []

    init(minimumIntervalNs: Int64 = 300_000_000) {
        self.minimumIntervalNs = minimumIntervalNs
        lastFIRSequenceNumbers.reserveCapacity(Self.maximumFIRRequesters)
    }

    /// When a deferred request becomes due, if one is held.
    var nextDeadlineNs: Int64? {
        guard pending, let lastForwardNs else { return nil }
        return lastForwardNs + minimumIntervalNs
    }

    mutating func onPictureLoss(nowNs: Int64, roundTripTimeNs: Int64) -> Outcome {
        request(nowNs: nowNs, roundTripTimeNs: roundTripTimeNs)
    }

    mutating func onFullIntraRequest(requester: UInt32, sequenceNumber: UInt8, nowNs: Int64, roundTripTimeNs: Int64) -> Outcome {
        if let index = lastFIRSequenceNumbers.firstIndex(where: { $0.requester == requester }) {
            if lastFIRSequenceNumbers[index].sequenceNumber == sequenceNumber { return .absorbed }
            lastFIRSequenceNumbers[index].sequenceNumber = sequenceNumber
        } else {
            if lastFIRSequenceNumbers.count == Self.maximumFIRRequesters { lastFIRSequenceNumbers.removeFirst() }
            lastFIRSequenceNumbers.append((requester, sequenceNumber))
        }
        return request(nowNs: nowNs, roundTripTimeNs: roundTripTimeNs)
    }

    /// A keyframe left (asked for or not): it answers what is pending.
    mutating func keyframeSent(atNs nowNs: Int64) {
        lastKeyframeSentNs = nowNs
        pending = false
    }

    /// True when a deferred request is due now; it is then forwarded.
    mutating func takeDueRequest(nowNs: Int64) -> Bool {
        guard let deadline = nextDeadlineNs, nowNs >= deadline else { return false }
        pending = false
        lastForwardNs = nowNs
        return true
    }

    private mutating func request(nowNs: Int64, roundTripTimeNs: Int64) -> Outcome {
        if let lastKeyframeSentNs, nowNs - lastKeyframeSentNs < roundTripTimeNs { return .absorbed }
        if pending { return .absorbed }
        if let lastForwardNs, nowNs - lastForwardNs < minimumIntervalNs {
            pending = true
            return .deferred
        }
        lastForwardNs = nowNs
        return .forward
    }
}
