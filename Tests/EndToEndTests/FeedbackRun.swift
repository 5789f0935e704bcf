import CameraRTP
import Foundation
import TestSupport

/// What the feedback tests share: `camrtp send`'s final figures, the frames a receiver decoded
/// intact, and the pieces of a stream through the impairment relay.
enum FeedbackRun {
    /// The figures `--stats-json` wrote.
    static func stats(at path: String) throws -> StatsSnapshot {
        try JSONDecoder().decode(StatsSnapshot.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The frame numbers in `range` that were decoded intact: present, and no more than
    /// `marginDB` below the worst frame of a loss-free run of the same clip.
    ///
    /// Why the worst frame and not the same frame: real-time rate control and keyframes on
    /// request share the bits out differently on every run, so a clean frame lands anywhere in
    /// 46–52 dB on this clip. A frame decoded from a damaged reference is nowhere near: with
    /// loss, no retransmission and GStreamer told not to wait for a keyframe, such frames
    /// measured 9–18 dB.
    static func intactFrames(_ decoded: [Int: Double], lossFree: [Int: Double], range: Range<Int>, marginDB: Double = 2) -> [Int] {
        let floor = (lossFree.values.min() ?? .infinity) - marginDB
        return range.filter { decoded[$0].map { $0 >= floor } ?? false }
    }
}

extension DecodedClip {
    /// The best PSNR of each frame number among the first `sourceCount` (a frame decoded twice
    /// counts once).
    func psnrByIndex(sourceCount: Int) -> [Int: Double] {
        let numbered = indices.compactMap { $0 }.filter { $0 < sourceCount }
        return zip(numbered, psnrs).reduce(into: [:]) { best, pair in best[pair.0] = max(best[pair.0] ?? 0, pair.1) }
    }
}

extension Array where Element == Double {
    var median: Double {
        guard !isEmpty else { return 0 }
        let sorted = sorted()
        return sorted[sorted.count / 2]
    }
}

extension Duration {
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
