import MediaCore

/// The stream header of a YUV4MPEG2 file: `YUV4MPEG2 W640 H480 F30:1 Ip A1:1 C420jpeg`.
///
/// Only 8-bit 4:2:0 (`420`, `420jpeg`, `420paldv`, `420mpeg2`, which differ only in chroma
/// siting) and `mono` are accepted, progressive only: the encoder takes I420.
public struct Y4MHeader: Sendable, Equatable {
    public enum ColorSpace: String, Sendable {
        case c420 = "420", c420jpeg = "420jpeg", c420paldv = "420paldv", c420mpeg2 = "420mpeg2", mono
    }

    /// Rates a header may declare, from one frame an hour to 1000 fps: the frame interval in

    public var width: Int
    public var height: Int
    public var frameRateNumerator: Int
    public var frameRateDenominator: Int
    public var pixelAspect: (numerator: Int, denominator: Int)?
    public var colorSpace: ColorSpace

    public var frameRate: Double { Double(frameRateNumerator) / Double(frameRateDenominator) }

    /// Bytes of picture data after each `FRAME` line.
    public var frameByteCount: Int {
        let luma = width * height
        return colorSpace == .mono ? luma : luma + 2 * ((width + 1) / 2) * ((height + 1) / 2)
    }

    public static func == (lhs: Y4MHeader, rhs: Y4MHeader) -> Bool {
        lhs.width == rhs.width && lhs.height == rhs.height && lhs.frameRateNumerator == rhs.frameRateNumerator
            && lhs.frameRateDenominator == rhs.frameRateDenominator && lhs.colorSpace == rhs.colorSpace
            && lhs.pixelAspect?.numerator == rhs.pixelAspect?.numerator
            && lhs.pixelAspect?.denominator == rhs.pixelAspect?.denominator
    }

    public init(width: Int, height: Int, frameRateNumerator: Int = 30, frameRateDenominator: Int = 1, colorSpace: ColorSpace = .c420jpeg) {
        self.width = width
        self.height = height
        self.frameRateNumerator = frameRateNumerator
        self.frameRateDenominator = frameRateDenominator
        self.colorSpace = colorSpace
    }

    /// Parses the header line without its terminating newline. Throws a `Y4MProblem`. A missing
    /// or zero rate (`F0:1`) means 25 fps, as ffmpeg reads it.
    public init(parsing line: Substring) throws(Y4MProblem) {
        let tokens = line.split(separator: " ", omittingEmptySubsequences: true)
        guard tokens.first == "YUV4MPEG2" else { throw .badHeader("it does not start with YUV4MPEG2") }
        var width: Int?
        var height: Int?
        var ratio = (numerator: 25, denominator: 1)
        var colorSpace = ColorSpace.c420jpeg
        for token in tokens.dropFirst() {
            let value = token.dropFirst()
            switch token.first {
            case "W": width = Self.positive(value)
            case "H": height = Self.positive(value)
            case "F":
                // GStreamer's y4menc writes F0:1 for a stream of unknown rate: keep the default.
                guard let parsed = Self.ratio(value), parsed.denominator > 0 else {
                    throw .badHeader("frame rate 'F\(value)' is not N:D with N, D > 0")
                }
                if parsed.numerator > 0 { ratio = parsed }
            case "A":
                pixelAspect = Self.ratio(value)
            case "I":
                guard value == "p" || value == "?" else { throw .interlaced(String(value)) }
            case "C":
                guard let space = ColorSpace(rawValue: String(value)) else { throw .unsupportedColorSpace(String(value)) }
                colorSpace = space
            default:
                continue  // X comments and tags from later versions carry nothing we need.
            }
        }
        guard let width else { throw .badHeader("width 'W' is missing or not a positive number") }
        guard let height else { throw .badHeader("height 'H' is missing or not a positive number") }
        if let problem = VideoLimits.sizeProblem(width: width, height: height) { throw .tooLarge(problem) }
        if let problem = VideoLimits.frameRateProblem(Double(ratio.numerator) / Double(ratio.denominator)) {
            throw .rateOutOfRange(problem)
        }
        self.width = width
        self.height = height
        frameRateNumerator = ratio.numerator
        frameRateDenominator = ratio.denominator
        self.colorSpace = colorSpace
    }

    /// The header line, newline included, as `Y4MWriter` writes it.
    public var serialized: String {
        "YUV4MPEG2 W\(width) H\(height) F\(frameRateNumerator):\(frameRateDenominator) Ip A1:1 C\(colorSpace.rawValue)\n"
    }

    private static func positive(_ text: Substring) -> Int? {
        guard let value = Int(text), value > 0 else { return nil }
        return value
    }

    /// `N:D` with both non-negative.
    private static func ratio(_ text: Substring) -> (numerator: Int, denominator: Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let numerator = Int(parts[0]), let denominator = Int(parts[1]) else { return nil }
        return numerator >= 0 && denominator >= 0 ? (numerator, denominator) : nil
    }
}

/// What is wrong with a Y4M file, without the file name; `Y4MError` adds it.
public enum Y4MProblem: Error, Sendable, Equatable {
    case cannotOpen(String)
    case badHeader(String)
    case unsupportedColorSpace(String)
    case interlaced(String)
    case badFrameHeader(frame: Int)
    case truncated(frame: Int, got: Int, expected: Int)
    /// A `FRAME` line whose parameters run past `Y4MStreamReader.maxFrameParameterBytes`.
    case frameParametersTooLong(frame: Int)
    case noFrames
    /// A picture larger than `VideoLimits` allow, with the sizes in words.
    case tooLarge(String)
    /// The frame rate is outside what camrtp takes (carries the reason).
    case rateOutOfRange(String)
    /// `--loop` on a stream that cannot go back to its start, such as a pipe.
    case cannotLoop
}

/// A Y4M file that cannot be read: one line naming the file, the problem and the fix.
public struct Y4MError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let problem: Y4MProblem

    public init(path: String, problem: Y4MProblem) {
        self.path = path
        self.problem = problem
    }

    public var description: String {
        switch problem {
        case .cannotOpen(let reason):
            "\(path): cannot open: \(reason)"
        case .badHeader(let detail):
            "\(path): not a usable Y4M file: \(detail)"
        case .unsupportedColorSpace(let space):
            "\(path): Y4M colour space 'C\(space)' is not supported; use 4:2:0 8-bit (ffmpeg -pix_fmt yuv420p)"
        case .interlaced(let mode):
            "\(path): interlaced Y4M ('I\(mode)') is not supported; deinterlace it first (ffmpeg -vf yadif)"
        case .badFrameHeader(let frame):
            "\(path): frame \(frame) does not start with FRAME; the file is damaged"
        case .truncated(let frame, let got, let expected):
            "\(path): truncated: frame \(frame) has \(got) of \(expected) bytes"
        case .frameParametersTooLong(let frame):
            "\(path): frame \(frame)'s FRAME line runs past \(Y4MStreamReader.maxFrameParameterBytes) bytes without ending; the file is damaged"
        case .noFrames:
            "\(path): the Y4M file has a header but no frames"
        case .tooLarge(let problem):
            "\(path): \(problem); scale it down first (ffmpeg -vf scale=1920:-2)"
        case .rateOutOfRange(let problem):
            "\(path): its frame rate, \(problem); re-time it first (ffmpeg -r 30)"
        case .cannotLoop:
            "\(path): a pipe cannot be looped, as it cannot go back to its first frame; save it to a file first, or leave out --loop"
        }
    }
}
