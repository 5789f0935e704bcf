import MediaCore
import Metrics
import StreamMetrics

/// One viewer's series, labelled `viewer="<label>"` (a WHEP resource id, never a secret):
/// `camrtp_viewer_frames_forwarded_total`, `camrtp_viewer_frames_dropped_total{reason}` (`slow`:
/// its queue overflowed; `before_keyframe`: skipped while it waited for one),
/// `camrtp_viewer_keyframe_requests_total`, with temporal layers `camrtp_viewer_temporal_layer`
/// (the highest layer it is sent), with simulcast `camrtp_viewer_encoding` (the encoding it is
/// sent, 0 the lowest), `camrtp_viewer_sent_*` (`SentTraffic`) and its sender's
/// figures (`SenderMetrics`). They are removed when the viewer leaves, so a server's
/// series are its current viewers'.
struct ViewerMetrics: Sendable {
    private let forwarded: Counter
    private let droppedSlow: Counter
    private let skipped: Counter
    private let keyframeRequests: Counter
    private let temporalLayer: Gauge?
    private let encoding: Gauge?
    private var sent: SentTraffic
    private var sender: SenderMetrics

    init(label: String, layered: Bool, simulcast: Bool) {
        let dimensions = [("viewer", label)]
        forwarded = Counter(label: "camrtp_viewer_frames_forwarded_total", dimensions: dimensions)
        droppedSlow = Counter(label: "camrtp_viewer_frames_dropped_total", dimensions: dimensions + [("reason", "slow")])
        skipped = Counter(label: "camrtp_viewer_frames_dropped_total", dimensions: dimensions + [("reason", "before_keyframe")])
        keyframeRequests = Counter(label: "camrtp_viewer_keyframe_requests_total", dimensions: dimensions)
        temporalLayer = layered ? Gauge(label: "camrtp_viewer_temporal_layer", dimensions: dimensions) : nil
        encoding = simulcast ? Gauge(label: "camrtp_viewer_encoding", dimensions: dimensions) : nil
        sent = SentTraffic(prefix: "camrtp_viewer", dimensions: dimensions)
        sender = SenderMetrics(prefix: "camrtp_viewer", dimensions: dimensions)
    }

    func record(_ offer: ViewerQueue.Offer) {
        switch offer {
        case .queued: forwarded.increment()
        case .skipped: skipped.increment()
        case .overflowed(let dropped): droppedSlow.increment(by: dropped)
        case .closed: break
        }
    }

    func recordTemporalLayer(_ layer: Int) {
        temporalLayer?.record(layer)
    }

    func recordEncoding(_ index: Int) {
        encoding?.record(index)
    }

    func keyframeRequested() {
        keyframeRequests.increment()
    }

    mutating func record(_ event: SinkEvent) {
        switch event {
        case .frameDelivered(_, let packets, let bytes, let deliveredNs): sent.record(packets: packets, bytes: bytes, nowNs: deliveredNs)
        case .overheadSent(let packets, let bytes): sent.record(packets: packets, bytes: bytes, nowNs: nil)
        case .statistics(let statistics): sender.record(statistics)
        case .keyframeRequested: break
        }
    }

    func destroy() {
        for counter in [forwarded, droppedSlow, skipped, keyframeRequests] { counter.destroy() }
        temporalLayer?.destroy()
        encoding?.destroy()
        sent.destroy()
        sender.destroy()
    }
}
