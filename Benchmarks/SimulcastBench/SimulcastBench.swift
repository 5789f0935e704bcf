import Capture
import FrameProcessing
import Glibc
import MediaCore
import TestSupport
import VP8

/// VP8 simulcast at 1280x720 against one 720p encoding and against three separate encoders
/// (full, half and quarter size, each scaled by libyuv as the simulcast encoder scales): CPU time
/// per picture, its ratio to one 720p encoding, and the PSNR of each encoding against the source
/// scaled to its size. All use WebRTC's stream settings with three temporal layers; simulcast
/// shares its total as libwebrtc's allocator does, and the separate encoders get the same shares.
/// Not a test: the figures depend on the machine.
@main
struct SimulcastBench {
    static let width = 1280
    static let height = 720
    static let totalKbps = 2500
    static let frameIntervalNs: Int64 = 1_000_000_000 / 30

    static func main() throws {
        let frames = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 300
        var settings = VP8EncoderSettings(bitrateKbps: totalKbps)
        settings.temporalLayers = 3
        let pictureFormat = VP8PictureFormat(width: width, height: height)
        let simulcast = try VP8SimulcastEncoder(settings: settings, format: pictureFormat, encodings: 3)
        let layout = simulcast.layout
        let shares = simulcast.encodingBitratesKbps

        let one = try VP8Encoder(settings: settings, format: pictureFormat)
        // The separate encoders get the settings the simulcast encoder gives each encoding.
        let separate = try layout.encodings.enumerated().map { index, encoding in
            try VP8Encoder(
                settings: VP8SimulcastEncoder.encodingSettings(settings, index: index, of: layout, bitrateKbps: shares[index]),
                format: VP8PictureFormat(width: encoding.width, height: encoding.height))
        }
        let scaled = layout.encodings.dropLast().map { I420Buffer(width: $0.width, height: $0.height) }

        var single = try Measure(name: "one 720p encoding", sizes: [(width, height)])
        var multi = try Measure(name: "simulcast 3 (multi-res)", sizes: layout.encodings.map { ($0.width, $0.height) })
        var three = try Measure(name: "3 separate VP8Encoders", sizes: layout.encodings.map { ($0.width, $0.height) })
        let renderer = TestPatternRenderer(width: width, height: height)
        let source = I420Buffer(width: width, height: height)
        for index in 0..<frames {
            renderer.render(index: index, into: source)
            let frame = VideoFrame(buffer: source, timestampNs: Int64(index) * frameIntervalNs)
            try single.run(source: source) { [try one.encode(frame)].compactMap { $0 } }
            try multi.run(source: source) { try simulcast.encode(frame) }
            try three.run(source: source) {
                // Each smaller picture from the next larger, as the simulcast encoder scales.
                for level in scaled.indices.reversed() {
                    try I420Transform.scale(level == scaled.count - 1 ? source : scaled[level + 1], into: scaled[level])
                }
                return try separate.enumerated().compactMap { index, encoder in
                    let picture = index == separate.count - 1 ? source : scaled[index]
                    var encoded = try encoder.encode(VideoFrame(buffer: picture, timestampNs: frame.timestampNs))
                    encoded?.encodingIndex = index
                    return encoded
                }
            }
        }

        // A Markdown table, as Benchmarks/README.md keeps it.
        print("VP8 \(width)x\(height), test pattern, \(frames) pictures, \(totalKbps) kbit/s in all (simulcast shares \(shares) kbit/s, lowest first), 3 temporal layers, cpu-used -6\n")
        print("| | CPU ms/picture | × one 720p | PSNR dB (size, kbit/s), lowest first |")
        print("|---|---:|---:|---|")
        for measure in [single, multi, three] {
            let ratio = measure.cpuMsPerPicture(frames) / single.cpuMsPerPicture(frames)
            let encodings = measure.sizes.indices.map { index in
                "\(format(measure.meanPSNR(index), 2)) (\(measure.sizes[index].0)x\(measure.sizes[index].1), \(format(measure.kbps(index, frames: frames), 0)))"
            }
            print("| \(measure.name) | \(format(measure.cpuMsPerPicture(frames), 2)) | \(format(ratio, 2)) | \(encodings.joined(separator: ", ")) |")
        }
    }
}

/// CPU time and quality of one way of encoding.
struct Measure {
    let name: String
    let sizes: [(Int, Int)]
    var cpuSeconds = 0.0
    var psnrSums: [Double]
    var psnrCounts: [Int]
    var bytes: [Int]
    let decoders: [VP8TestDecoder]
    let references: [I420Buffer]

    init(name: String, sizes: [(Int, Int)]) throws {
        self.name = name
        self.sizes = sizes
        psnrSums = Array(repeating: 0, count: sizes.count)
        psnrCounts = Array(repeating: 0, count: sizes.count)
        bytes = Array(repeating: 0, count: sizes.count)
        decoders = try sizes.map { _ in try VP8TestDecoder() }
        references = sizes.map { I420Buffer(width: $0.0, height: $0.1) }
    }

    /// Times `encode` in process CPU, then decodes what it made.
    mutating func run(source: I420Buffer, _ encode: () throws -> [EncodedFrame]) throws {
        let start = processCPUSeconds()
        let frames = try encode()
        cpuSeconds += processCPUSeconds() - start
        for frame in frames {
            let index = frame.encodingIndex
            bytes[index] += frame.data.count
            guard let decoded = try decoders[index].decode(frame.data) else { continue }
            try I420Transform.scale(source, into: references[index])
            psnrSums[index] += I420Transform.psnr(decoded, references[index]) ?? 0
            psnrCounts[index] += 1
        }
    }

    func cpuMsPerPicture(_ pictures: Int) -> Double { cpuSeconds * 1000 / Double(pictures) }
    func meanPSNR(_ index: Int) -> Double { psnrSums[index] / Double(max(1, psnrCounts[index])) }
    func kbps(_ index: Int, frames: Int) -> Double { Double(bytes[index] * 8) * 30 / Double(frames) / 1000 }
}

/// CPU time of the whole process (every thread libvpx runs), in seconds.
func processCPUSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// `value` with `decimals` places (at most 2), for the table.
func format(_ value: Double, _ decimals: Int) -> String {
    let scale = decimals == 0 ? 1.0 : decimals == 1 ? 10.0 : 100.0
    let hundredths = Int((value * scale).rounded())
    guard decimals > 0 else { return "\(hundredths)" }
    let fraction = String(hundredths % Int(scale))
    return "\(hundredths / Int(scale))." + String(repeating: "0", count: decimals - fraction.count) + fraction
}
