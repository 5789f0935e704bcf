import Testing
@testable import WebRTC

/// The encodings an answer left reach the pipeline's encoder whichever comes first: the
/// negotiation, or the encoder's attachment (`publish` attaches each new session's sender to
/// the encoder it already runs).
@Suite struct ObservedEncoderControlTests {
    @Test func theAnswersEncodingsReachAnEncoderAttachedLater() {
        let control = ObservedEncoderControl { _ in }
        control.setActiveEncodings([1, 2])
        let encoder = ManualEncoderControl {}
        control.setUpstream(encoder)
        #expect(encoder.activeEncodings.withLock { $0 } == [1, 2])
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
