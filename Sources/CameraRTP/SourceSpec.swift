import MediaCore

/// A `--source` value: `auto`, `camera[:DEVICE]`, `testsrc[:WxH[@FPS]]`, `y4m:PATH` or
/// `fake-camera[:[POSITION=]FOURCC[:WxH[@FPS]],...]`.
public enum SourceSpec: Sendable, Equatable {
    /// The first camera, else the test pattern.
    case auto
    case camera(device: String?)
    case testPattern(width: Int, height: Int, fps: Double)
    case y4m(path: String)
    /// The real V4L2 capturer against the in-process fake device; the text after the colon.
    case fakeCamera(spec: String?)

    /// What `testsrc` alone, and `auto` without a camera, stream.
    public static let defaultTestPatternMode = VideoMode(width: 1280, height: 720, fps: 30)

    public init(parsing text: String) throws(SourceSpecError) {
        let (kind, rest) = Self.split(text)
        switch kind {
        case "auto" where rest == nil:
            self = .auto
        case "camera":
            self = .camera(device: rest)
        case "testsrc":
            guard let mode = rest.map(VideoMode.init(parsing:)) ?? Self.defaultTestPatternMode else {
                throw SourceSpecError(
                    input: text, reason: "expected testsrc:WxH or testsrc:WxH@FPS with sides 2...\(VideoLimits.maxSide), such as testsrc:1280x720@30")
            }
            if let problem = VideoLimits.sizeProblem(width: mode.width, height: mode.height) {
                throw SourceSpecError(input: text, reason: problem)
            }
            self = .testPattern(width: mode.width, height: mode.height, fps: mode.fps ?? 30)
        case "y4m":
            guard let rest, !rest.isEmpty else {
                throw SourceSpecError(input: text, reason: "expected y4m:PATH, such as y4m:clip.y4m")
            }
            self = .y4m(path: rest)
        case "fake-camera":
            self = .fakeCamera(spec: rest)
        default:
            throw SourceSpecError(
                input: text,
                reason: "unknown source; use auto, camera[:DEVICE], testsrc[:WxH[@FPS]], y4m:PATH or fake-camera[:[POSITION=]FOURCC[:WxH[@FPS]],...]")
        }
    }

    private static func split(_ text: String) -> (String, String?) {
        guard let colon = text.firstIndex(of: ":") else { return (text, nil) }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }
}

/// A picture size with an optional rate: `1280x720` or `1280x720@30`.
public struct VideoMode: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var fps: Double?

    public init(width: Int, height: Int, fps: Double? = nil) {
        self.width = width
        self.height = height
        self.fps = fps
    }

    /// Sizes run 2...`VideoLimits.maxSide` on each side; a rate must be in (0, 240].
    public init?(parsing text: String) {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { return nil }
        let size = parts[0].lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard size.count == 2, let width = Int(size[0]), let height = Int(size[1]),
              (2...VideoLimits.maxSide).contains(width), (2...VideoLimits.maxSide).contains(height) else { return nil }
        self.width = width
        self.height = height
        if parts.count == 2 {
            guard let fps = Double(parts[1]), VideoLimits.frameRateProblem(fps) == nil else { return nil }
            self.fps = fps
        }
    }
}

/// A `--source` value that cannot be used, with what to write instead.
public struct SourceSpecError: Error, CustomStringConvertible, Sendable {
    public let input: String
    public let reason: String
    public var description: String { "--source \"\(input)\": \(reason)" }
}
