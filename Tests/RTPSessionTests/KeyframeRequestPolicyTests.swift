import Testing
@testable import RTPSession

@Suite struct KeyframeRequestPolicyTests {
    static let ms: Int64 = 1_000_000

    @Test func theFirstRequestIsForwarded() {
        var policy = KeyframeRequestPolicy()
        #expect(policy.onPictureLoss(nowNs: 5_000 * Self.ms, roundTripTimeNs: 50 * Self.ms) == .forward)
        #expect(policy.nextDeadlineNs == nil)
    }

    /// 1000 PLIs in one second, one per millisecond, and no keyframe ever leaving: the encoder
    /// is asked at 0, 300, 600 and 900 ms and never more.
    @Test func aFloodOfPLIsGivesAtMostFourKeyframesPerSecond() {
        var policy = KeyframeRequestPolicy()
        var forwardsMs: [Int64] = []
        for tick in Int64(0)..<1_000 {
            let nowNs = tick * Self.ms
            if policy.takeDueRequest(nowNs: nowNs) { forwardsMs.append(tick) }
            if policy.onPictureLoss(nowNs: nowNs, roundTripTimeNs: 0) == .forward { forwardsMs.append(tick) }
        }
        #expect(forwardsMs.count <= 4)
        #expect(forwardsMs == [0, 300, 600, 900])
        #expect(policy.nextDeadlineNs == 1_200 * Self.ms, "the requests after 900 ms wait as one")
    }

    /// The same flood with an encoder that answers each request 30 ms later and an RTT of 50 ms.
    @Test func aFloodAnsweredByKeyframesStaysThrottled() {
        var policy = KeyframeRequestPolicy()
        var forwards = 0
        var keyframeDueNs: Int64?
        for tick in Int64(0)..<1_000 {
            let nowNs = tick * Self.ms
            if let due = keyframeDueNs, nowNs >= due {
                policy.keyframeSent(atNs: nowNs)
                keyframeDueNs = nil
            }
            var forwarded = policy.takeDueRequest(nowNs: nowNs)
            forwarded = policy.onPictureLoss(nowNs: nowNs, roundTripTimeNs: 50 * Self.ms) == .forward || forwarded
            if forwarded {
                forwards += 1
                keyframeDueNs = nowNs + 30 * Self.ms
            }
        }
        #expect(forwards >= 1)
        #expect(forwards <= 4)
    }

    @Test func requestsWithinTheIntervalCollapseIntoOneDeferredRequest() {
        var policy = KeyframeRequestPolicy()
        func takeDueRequest(atNs nowNs: Int64) -> Bool { policy.takeDueRequest(nowNs: nowNs) }
        #expect(policy.onPictureLoss(nowNs: 0, roundTripTimeNs: 0) == .forward)
        #expect(policy.onPictureLoss(nowNs: 100 * Self.ms, roundTripTimeNs: 0) == .deferred)
        #expect(policy.onPictureLoss(nowNs: 150 * Self.ms, roundTripTimeNs: 0) == .absorbed)
        #expect(policy.onFullIntraRequest(requester: 9, sequenceNumber: 1, nowNs: 200 * Self.ms, roundTripTimeNs: 0) == .absorbed)
        #expect(policy.nextDeadlineNs == 300 * Self.ms)
        #expect(!takeDueRequest(atNs: 300 * Self.ms - 1))
        #expect(takeDueRequest(atNs: 300 * Self.ms))
        #expect(policy.nextDeadlineNs == nil)
        #expect(!takeDueRequest(atNs: 301 * Self.ms))
        // The deferred request counted as a forward: the next one waits for 600 ms.
        #expect(policy.onPictureLoss(nowNs: 400 * Self.ms, roundTripTimeNs: 0) == .deferred)
        #expect(policy.nextDeadlineNs == 600 * Self.ms)
    }

    @Test func aKeyframeLeavingAnswersTheDeferredRequest() {
        var policy = KeyframeRequestPolicy()
        func takeDueRequest(atNs nowNs: Int64) -> Bool { policy.takeDueRequest(nowNs: nowNs) }
        #expect(policy.onPictureLoss(nowNs: 0, roundTripTimeNs: 0) == .forward)
        #expect(policy.onPictureLoss(nowNs: 100 * Self.ms, roundTripTimeNs: 0) == .deferred)
        policy.keyframeSent(atNs: 150 * Self.ms)
        #expect(policy.nextDeadlineNs == nil)
        #expect(!takeDueRequest(atNs: 300 * Self.ms))
    }

    @Test func aRequestWithinOneRoundTripOfAKeyframeIsAnsweredByIt() {
        var policy = KeyframeRequestPolicy()
        let rttNs = 100 * Self.ms
        policy.keyframeSent(atNs: 1_000 * Self.ms)
        // Sent by the receiver before the keyframe could reach it.
        #expect(policy.onPictureLoss(nowNs: 1_050 * Self.ms, roundTripTimeNs: rttNs) == .absorbed)
        #expect(policy.onPictureLoss(nowNs: 1_100 * Self.ms - 1, roundTripTimeNs: rttNs) == .absorbed)
        #expect(policy.nextDeadlineNs == nil)
        // One RTT later the receiver has seen the keyframe and still asks: it needs another.
        #expect(policy.onPictureLoss(nowNs: 1_100 * Self.ms, roundTripTimeNs: rttNs) == .forward)
    }

    @Test func aRepeatedFIRCountsOnce() {
        var policy = KeyframeRequestPolicy()
        #expect(policy.onFullIntraRequest(requester: 0xA, sequenceNumber: 1, nowNs: 0, roundTripTimeNs: 0) == .forward)
        // The requester repeats its FIR until the keyframe arrives (RFC 5104 §4.3.1.2).
        #expect(policy.onFullIntraRequest(requester: 0xA, sequenceNumber: 1, nowNs: 1_000 * Self.ms, roundTripTimeNs: 0) == .absorbed)
        #expect(policy.onFullIntraRequest(requester: 0xA, sequenceNumber: 1, nowNs: 2_000 * Self.ms, roundTripTimeNs: 0) == .absorbed)
        #expect(policy.nextDeadlineNs == nil)
        // A new sequence number is a new request; so is the same number from someone else.
        #expect(policy.onFullIntraRequest(requester: 0xA, sequenceNumber: 2, nowNs: 3_000 * Self.ms, roundTripTimeNs: 0) == .forward)
        #expect(policy.onFullIntraRequest(requester: 0xB, sequenceNumber: 2, nowNs: 4_000 * Self.ms, roundTripTimeNs: 0) == .forward)
        // The sequence number wraps (8 bits): 255 then 0 are two requests.
        #expect(policy.onFullIntraRequest(requester: 0xA, sequenceNumber: 255, nowNs: 5_000 * Self.ms, roundTripTimeNs: 0) == .forward)
        #expect(policy.onFullIntraRequest(requester: 0xA, sequenceNumber: 0, nowNs: 6_000 * Self.ms, roundTripTimeNs: 0) == .forward)
    }

    @Test func theRequesterMemoryIsBounded() {
        var policy = KeyframeRequestPolicy()
        let requesters = UInt32(KeyframeRequestPolicy.maximumFIRRequesters)
        var nowNs: Int64 = 0
        func fir(_ requester: UInt32) -> KeyframeRequestPolicy.Outcome {
            nowNs += 1_000 * Self.ms
            return policy.onFullIntraRequest(requester: requester, sequenceNumber: 7, nowNs: nowNs, roundTripTimeNs: 0)
        }
        for requester in 0...requesters {
            #expect(fir(requester) == .forward)
        }
        // 33 requesters seen, 32 remembered: the newest repeat is recognised, the oldest is not.
        #expect(fir(requesters) == .absorbed)
        #expect(fir(1) == .absorbed)
        #expect(fir(0) == .forward)
        // Remembering requester 0 again pushed out requester 1, the oldest left.
        #expect(fir(2) == .absorbed)
        #expect(fir(1) == .forward)
        // Thousands of requesters later, only the last 32 are known.
        for requester in UInt32(1_000)..<3_000 { _ = fir(requester) }
        #expect(fir(2_999) == .absorbed)
        #expect(fir(2_968) == .absorbed)
        #expect(fir(2_967) == .forward)
    }
}
