import MediaCore

/// The encoder as one viewer's sink sees it: its requests go to the shared `ViewerSteering`
/// instead of straight to the encoder, so one viewer's PLI storm or low estimate is merged with
/// the others' rather than obeyed alone.
final class ViewerEncoderControl: EncoderControl {
    private let id: Int
    private weak let owner: MultiViewerSink?

    init(id: Int, owner: MultiViewerSink) {
        self.id = id
        self.owner = owner
    }

    func requestKeyframe() {
        owner?.viewerRequestedKeyframe(id)
    }

    /// A viewer is sent one encoding, so its request is for the stream it has.
    func requestKeyframe(encodingIndex: Int) {
        requestKeyframe()
    }

    func setTargetBitrate(kbps: Int) {
        owner?.viewerEstimate(id, kbps: kbps)
    }

    func setNetworkCongested(_ congested: Bool) {
        owner?.viewerCongested(id, congested)
    }
}
