import MediaCore

/// Where a still picture goes: the format its name asks for, written through `OutputFile`, so a
/// regular file is replaced in one step, a symlink stays a symlink and a device or FIFO is written
/// through.
public enum ImageFile {
    /// The format `path`'s extension asks for, after checking that the path could take it: no
    /// directory, writable, in a folder that exists and is writable. Call it before capturing.
    public static func checkOutput(_ path: String) throws(OutputFileError) -> ImageFormat {
        guard let format = ImageFormat(fileName: path) else {
            let known = ImageFormat.allCases.flatMap(\.fileExtensions).map { "." + $0 }.joined(separator: ", ")
            throw OutputFileError(path: path, reason: "unknown image type; name the file with \(known)")
        }
        try OutputFile.check(path)
        return format
    }

    /// Writes `data` to `path` by `OutputFile`'s rules.
    public static func write(_ data: [UInt8], to path: String) throws(OutputFileError) {
        try OutputFile.write(data, to: path)
    }
}
