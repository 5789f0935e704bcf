import MediaCore
import Synchronization

/// The encoder as the RTP sender steers it, seen by the WebRTC sender: calls go on to the
/// pipeline's encoder (once attached) and target changes become events. The encodings the
/// answer left are kept, for an encoder attached after the negotiation.
final class ObservedEncoderControl: EncoderControl, Sendable {
    private let upstream = Mutex<(any EncoderControl)?>(nil)
    private let activeEncodings = Mutex<Set<Int>?>(nil)
    private let onTarget: @Sendable (Int) -> Void

    init(onTarget: @escaping @Sendable (Int) -> Void) {
        self.onTarget = onTarget
    }

    func setUpstream(_ encoder: any EncoderControl) {
        upstream.withLock { $0 = encoder }
        if let active = activeEncodings.withLock({ $0 }) { encoder.setActiveEncodings(active) }
    }

    var paddingProbeKbps: Int {
        upstream.withLock { $0 }?.paddingProbeKbps ?? 0
    }

    func paddingProbeFailed() {
        upstream.withLock { $0 }?.paddingProbeFailed()
    }

    func setActiveEncodings(_ encodings: Set<Int>) {
        activeEncodings.withLock { $0 = encodings }
        upstream.withLock { $0 }?.setActiveEncodings(encodings)
    }

    func requestKeyframe() {
        upstream.withLock { $0 }?.requestKeyframe()
    }

    func requestKeyframe(encodingIndex: Int) {
        upstream.withLock { $0 }?.requestKeyframe(encodingIndex: encodingIndex)
    }

    func setTargetBitrate(kbps: Int) {
        upstream.withLock { $0 }?.setTargetBitrate(kbps: kbps)
        onTarget(kbps)
    }

    func setNetworkCongested(_ congested: Bool) {
        upstream.withLock { $0 }?.setNetworkCongested(congested)
    }
}
