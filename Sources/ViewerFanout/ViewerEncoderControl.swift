import MediaCore
import Synchronization

/// The encoder as one viewer's sink sees it: its requests go to the shared `ViewerSteering`
/// instead of straight to the encoder, so one viewer's PLI storm or low estimate is merged with
/// the others' rather than obeyed alone.
final class ViewerEncoderControl: EncoderControl {
    private let id: Int
    private weak let owner: MultiViewerSink?
    /// Set by the fan-out (`SimulcastSelection.paddingProbeKbps`), read by the viewer's sender.
    let paddingProbe = Atomic<Int>(0)

    init(id: Int, owner: MultiViewerSink) {
        self.id = id
        self.owner = owner
    }

    func requestKeyframe() {
        owner?.viewerRequestedKeyframe(id)
    }

    /// The viewer's sender has one encoding: the one the viewer is forwarded.
    func requestKeyframe(encodingIndex: Int) {
        owner?.viewerRequestedKeyframe(id)
    }

    func setTargetBitrate(kbps: Int) {
        owner?.viewerEstimate(id, kbps: kbps)
    }

    var paddingProbeKbps: Int { paddingProbe.load(ordering: .relaxed) }

    func paddingProbeFailed() {
        owner?.viewerPaddingProbeFailed(id)
    }

    /// The viewer's sender has one encoding, which the fan-out picks among all the encoder's.
    func setActiveEncodings(_ encodings: Set<Int>) {}

    func setNetworkCongested(_ congested: Bool) {
        owner?.viewerCongested(id, congested)
    }
}
