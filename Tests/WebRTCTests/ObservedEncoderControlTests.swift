import Testing
@testable import WebRTC

/// The encodings an answer left reach the pipeline's encoder whichever comes first: the
/// negotiation, or the encoder's attachment (`publish` attaches each new session's sender to
/// the encoder it already runs). The padding probe the encoder's owner asks for reaches the RTP
/// sender, and its failure comes back.
@Suite struct ObservedEncoderControlTests {
    @Test func theAnswersEncodingsReachAnEncoderAttachedLater() {
        let control = ObservedEncoderControl { _ in }
        control.setActiveEncodings([1, 2])
        let encoder = ManualEncoderControl {}
        control.setUpstream(encoder)
        #expect(encoder.activeEncodings.withLock { $0 } == [1, 2])
    }

    @Test func thePaddingProbeGoesThroughBothWays() {
        let control = ObservedEncoderControl { _ in }
        #expect(control.paddingProbeKbps == 0, "nothing attached, nothing asked")
        let encoder = ManualEncoderControl {}
        control.setUpstream(encoder)
        encoder.paddingProbe.store(700, ordering: .relaxed)
        #expect(control.paddingProbeKbps == 700)
        control.paddingProbeFailed()
        #expect(encoder.paddingProbeFailures.load(ordering: .relaxed) == 1)
    }

    @Test func anEncoderAttachedFirstIsToldAtOnce() {
        let control = ObservedEncoderControl { _ in }
        let encoder = ManualEncoderControl {}
        control.setUpstream(encoder)
        #expect(encoder.activeEncodings.withLock { $0 } == nil)
        control.setActiveEncodings([2])
        #expect(encoder.activeEncodings.withLock { $0 } == [2])
    }
}
