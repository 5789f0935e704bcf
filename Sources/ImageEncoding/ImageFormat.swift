/// The still-image formats camrtp writes.
public enum ImageFormat: String, Sendable, CaseIterable {
    /// JPEG (JFIF, 4:2:0), lossy, through TurboJPEG.
    case jpeg
    /// PNG, 8-bit RGB, lossless, through libpng.
    case png

    /// The file name extensions that select each format, lowercase.
    public var fileExtensions: [String] {
        switch self {
        case .jpeg: ["jpg", "jpeg"]
        case .png: ["png"]
        }
    }

    /// The format a file name asks for by its extension (any case), or nil for any other name.
    public init?(fileName: String) {
        let name = fileName.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let fileExtension = name[name.index(after: dot)...].lowercased()
        guard let format = Self.allCases.first(where: { $0.fileExtensions.contains(fileExtension) }) else { return nil }
        self = format
    }
}
