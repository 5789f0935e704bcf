/// One encoding's bitrates in bit/s, as libwebrtc's `SimulcastStream` carries them: below
/// `minBps` it is not worth sending, `targetBps` is what it gets while a higher encoding is
/// sent too, and `maxBps` what it may take as the highest.
public struct SimulcastRates: Sendable, Equatable {
    public var minBps: Int
    public var targetBps: Int
    public var maxBps: Int

    public init(minBps: Int, targetBps: Int, maxBps: Int) {
        self.minBps = minBps
        self.targetBps = targetBps
        self.maxBps = maxBps
    }
}

/// One encoding of a simulcast set: its picture size, rates and temporal layers.
public struct SimulcastEncodingFormat: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var rates: SimulcastRates
    public var temporalLayers: Int
}

/// The encodings a simulcast encoder makes of one picture, lowest first (`encodingIndex` 0 is
/// the smallest): full, half and quarter size, each side halved exactly, with libwebrtc's rates
/// for each size (`GetNormalSimulcastLayers` in `video/config/simulcast.cc`). Pure.
public struct SimulcastLayout: Sendable, Equatable {
    /// How many encodings `--simulcast` takes; 1 is a single stream.
    public static let supportedCounts = 1...3

    /// Lowest first.
    public let encodings: [SimulcastEncodingFormat]

    /// The layout of `count` encodings of `width`×`height` pictures, each with
    /// `temporalLayers` layers. Refuses a count outside 1...3, a size libwebrtc would not split
    /// that many times (`maxEncodings`), and sides that do not halve exactly `count - 1` times
    /// (libwebrtc's `NormalizeSimulcastSize` crops to such sides; the pipeline's picture is the
    /// size asked for, so it is refused instead).
    public init(width: Int, height: Int, count: Int, temporalLayers: Int) throws(VPXError) {
        guard Self.supportedCounts.contains(count) else {
            throw VPXError("vpx_codec_enc_init_multi", message: "simulcast takes 1, 2 or 3 encodings, not \(count)")
        }
        guard VP8TemporalLayers.supportedLayerCounts.contains(temporalLayers) else {
            throw VPXError("vpx_codec_enc_init_multi", message: "temporal layers must be 1...3, not \(temporalLayers)")
        }
        let most = Self.maxEncodings(width: width, height: height)
        guard count <= most else {
            throw VPXError("vpx_codec_enc_init_multi", message: "\(width)x\(height) is too small for \(count) simulcast encodings: \(most == 1 ? "it takes one" : "it takes at most \(most)") (\(count) need at least \(Self.smallestSize(for: count)))")
        }
        let divisor = 1 << (count - 1)
        guard width % divisor == 0, height % divisor == 0 else {
            throw VPXError("vpx_codec_enc_init_multi", message: "\(width)x\(height) does not halve exactly for \(count) simulcast encodings: both sides must be multiples of \(divisor)")
        }
        encodings = (0..<count).map { index in
            let scale = 1 << (count - 1 - index)
            let (w, h) = (width / scale, height / scale)
            var rates = Self.rates(width: w, height: h)
            if index == 0 {
                // libwebrtc keeps the lowest encoding's base layer at the rate it has with three
                // temporal layers, whatever its own count.
                // The factor is a C++ `float` of a double quotient, and the products are floats.
                let factor = Float(VP8TemporalLayers.cumulativeRateShares(layerCount: 3)[0]
                    / VP8TemporalLayers.cumulativeRateShares(layerCount: temporalLayers)[0])
                rates.maxBps = Int(Float(rates.maxBps) * factor)
                rates.targetBps = Int(Float(rates.targetBps) * factor)
            }
            rates.maxBps = max(rates.minBps, rates.maxBps)
            rates.targetBps = max(rates.minBps, rates.targetBps)
            return SimulcastEncodingFormat(width: w, height: h, rates: rates, temporalLayers: temporalLayers)
        }
    }

    /// libwebrtc's `kSimulcastFormats`, highest first: width, height, most encodings, and the
    /// max, target and min kbit/s of an encoding of that size. The last row (0x0) takes the
    /// 320x180 rates, as without the low-resolution interpolation trial.
    static let formats: [(width: Int, height: Int, maxEncodings: Int, maxKbps: Int, targetKbps: Int, minKbps: Int)] = [
        (1920, 1080, 3, 5000, 4000, 800),
        (1280, 720, 3, 2500, 2500, 600),
        (960, 540, 3, 1200, 1200, 350),
        (640, 360, 2, 700, 500, 150),
        (480, 270, 2, 450, 350, 150),
        (320, 180, 1, 200, 150, 30),
        (0, 0, 1, 200, 150, 30),
    ]

    /// libwebrtc's `FindSimulcastFormatIndex`: the first row with no more pixels.
    private static func formatIndex(width: Int, height: Int) -> Int {
        formats.firstIndex { width * height >= $0.width * $0.height } ?? formats.count - 1
    }

    /// The most encodings libwebrtc makes of a picture this size (`LimitSimulcastLayerCount`
    /// without its round-up to the next row): 3 from 960x540, 2 from 480x270, else 1.
    public static func maxEncodings(width: Int, height: Int) -> Int {
        formats[formatIndex(width: width, height: height)].maxEncodings
    }

    /// The smallest row of the table that takes `count` encodings, as text.
    static func smallestSize(for count: Int) -> String {
        let row = formats.last { $0.maxEncodings >= count } ?? formats[0]
        return "\(row.width)x\(row.height)"
    }

    /// libwebrtc's `InterpolateSimulcastFormat`: the rates of the table, interpolated by pixel
    /// count between the rows around the size.
    static func rates(width: Int, height: Int) -> SimulcastRates {
        let index = formatIndex(width: width, height: height)
        let row = formats[index]
        guard index > 0 else {
            return SimulcastRates(minBps: row.minKbps * 1000, targetBps: row.targetKbps * 1000, maxBps: row.maxKbps * 1000)
        }
        let up = formats[index - 1]
        let pixelsUp = up.width * up.height
        let rate = Float(pixelsUp - width * height) / Float(pixelsUp - row.width * row.height)
        func interpolate(_ upper: Int, _ lower: Int) -> Int {
            Int((Double(upper * 1000) * (1 - Double(rate)) + Double(lower * 1000) * Double(rate)).rounded())
        }
        return SimulcastRates(
            minBps: interpolate(up.minKbps, row.minKbps), targetBps: interpolate(up.targetKbps, row.targetKbps),
            maxBps: interpolate(up.maxKbps, row.maxKbps))
    }
}

/// libwebrtc's `SimulcastRateAllocator::DistributeAllocationToSimulcastLayers` for one total:
/// the lowest encoding gets up to its target first (and at least its minimum, always), then the
/// next, and the highest one sent gets what is left up to its maximum. An encoding whose minimum
/// no longer fits is paused (allocated 0) with every one above it; a paused encoding comes back
/// only once 1.2 × its minimum (capped at its target) fits, the video hysteresis of libwebrtc's
/// `StableTargetRateExperiment`, so a total near a minimum does not switch it on and off.
///
/// An encoding that is not `active` (no receiver takes it: the answer declined its RID) gets 0
/// and is passed over, as libwebrtc passes over an encoding whose `RtpEncodingParameters.active`
/// is false: the lowest active one is the one that always gets its minimum, and the total goes
/// to the active ones. Pure; the encoder runs it on its own thread.
public struct SimulcastRateAllocator: Sendable {
    /// libwebrtc's default `video_hysteresis_factor`.
    public static let hysteresisFactor = 1.2

    /// Lowest first.
    public let rates: [SimulcastRates]
    /// The encodings that may be sent at all (indices, lowest first); every one at first.
    public var active: Set<Int>
    /// Which encodings the last allocation sent; nil before the first, which has no hysteresis.
    private var enabled: [Bool]?

    public init(rates: [SimulcastRates]) {
        self.rates = rates
        active = Set(rates.indices)
    }

    /// Each encoding's bitrate in bit/s for `totalBps`, lowest first; 0 pauses an encoding.
    public mutating func allocate(totalBps: Int) -> [Int] {
        let isFirst = enabled == nil
        var enabled = self.enabled ?? Array(repeating: false, count: rates.count)
        var allocation = Array(repeating: 0, count: rates.count)
        guard let lowest = rates.indices.first(where: active.contains) else {
            self.enabled = Array(repeating: false, count: rates.count)
            return allocation
        }
        var left = max(totalBps, rates[lowest].minBps)
        var top = lowest
        var full = false
        for index in rates.indices {
            let stream = rates[index]
            var minimum = stream.minBps
            if !isFirst && !enabled[index] {
                minimum = min(Int(Self.hysteresisFactor * Double(stream.minBps)), stream.targetBps)
            }
            // The lowest active one always fits: `left` starts at its minimum or more. Once one
            // does not fit, none above it does: their minimums are higher.
            let isActive = active.contains(index)
            full = full || (isActive && index > lowest && left < minimum)
            enabled[index] = isActive && !full
            guard enabled[index] else { continue }
            top = index
            let rate = min(left, stream.targetBps)
            allocation[index] = rate
            left -= rate
        }
        if left > 0 {
            allocation[top] += min(left, rates[top].maxBps - allocation[top])
        }
        self.enabled = enabled
        return allocation
    }
}
