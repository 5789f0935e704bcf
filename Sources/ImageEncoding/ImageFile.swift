#if canImport(Glibc)
import Glibc
#endif

/// An output path that cannot take an image, with the reason in words.
public struct ImageFileError: Error, CustomStringConvertible, Sendable, Equatable {
    public let path: String
    public let reason: String
    /// The errno behind it, when a system call failed.
    public let code: Int32?

    init(path: String, reason: String, code: Int32? = nil) {
        self.path = path
        self.reason = reason
        self.code = code
    }

    init(path: String, operation: String, code: Int32) {
        self.init(path: path, reason: "\(operation) failed: \(String(cString: strerror(code))) (errno \(code))", code: code)
    }

    public var description: String { "\(path): \(reason)" }
}

/// Writes an image to a path without ever changing what kind of file the path is. A regular
/// file (or a symlink to one) is replaced in one step: a temporary file in the same folder,
/// renamed over it, so a reader never sees half a picture and the symlink stays a symlink. A
/// device, FIFO or socket is written through as it is. A directory is refused.
public enum ImageFile {
    /// How a path takes the bytes.
    private enum Target {
        /// A regular file, new or existing (then `mode` keeps its permissions), at its resolved path.
        case replace(path: String, mode: mode_t?)
        /// An existing device, FIFO or socket; or the missing target of a symlink, created.
        case writeThrough(create: Bool)
    }

    /// The format `path`'s extension asks for, after checking that the path could take it: no
    /// directory, writable, in a folder that exists and is writable. Call it before capturing.
    public static func checkOutput(_ path: String) throws(ImageFileError) -> ImageFormat {
        guard let format = ImageFormat(fileName: path) else {
            let known = ImageFormat.allCases.flatMap(\.fileExtensions).map { "." + $0 }.joined(separator: ", ")
            throw ImageFileError(path: path, reason: "unknown image type; name the file with \(known)")
        }
        _ = try target(of: path)
        return format
    }

    /// Writes `data` to `path` by the rules above.
    public static func write(_ data: [UInt8], to path: String) throws(ImageFileError) {
        switch try target(of: path) {
        case .replace(let target, let mode):
            try replace(target, with: data, mode: mode, reportedAs: path)
        case .writeThrough(let create):
            try writeThrough(path, data: data, create: create)
        }
    }

    private static func target(of path: String) throws(ImageFileError) -> Target {
        var status = stat()
        if stat(path, &status) == 0 {
            let type = status.st_mode & S_IFMT
            guard type != S_IFDIR else { throw ImageFileError(path: path, reason: "is a directory; name a file in it") }
            guard access(path, W_OK) == 0 else { throw ImageFileError(path: path, operation: "access", code: errno) }
            guard type == S_IFREG else { return .writeThrough(create: false) }
            guard let resolved = realpath(path, nil) else { throw ImageFileError(path: path, operation: "realpath", code: errno) }
            defer { free(resolved) }
            let target = String(cString: resolved)
            try checkFolder(of: target, reportedAs: path)
            return .replace(path: target, mode: status.st_mode & 0o7777)
        }
        guard errno == ENOENT else { throw ImageFileError(path: path, operation: "stat", code: errno) }
        // A symlink to nothing yet: create its target, and keep the link.
        if lstat(path, &status) == 0 { return .writeThrough(create: true) }
        try checkFolder(of: path, reportedAs: path)
        return .replace(path: path, mode: nil)
    }

    private static func checkFolder(of path: String, reportedAs reported: String) throws(ImageFileError) {
        let folder = folderName(path)
        var status = stat()
        guard stat(folder, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw ImageFileError(path: reported, reason: "the folder \(folder) does not exist")
        }
        guard access(folder, W_OK) == 0 else {
            throw ImageFileError(path: reported, reason: "the folder \(folder) is not writable", code: EACCES)
        }
    }

    /// A temporary file beside `target`, filled, flushed and renamed over it; `mode` keeps an
    /// existing file's permissions (a new file gets 0666 less the umask).
    private static func replace(_ target: String, with data: [UInt8], mode: mode_t?, reportedAs path: String) throws(ImageFileError) {
        let folder = folderName(target)
        let base = target.split(separator: "/").last.map(String.init) ?? "image"
        var temporary: String
        var fd: Int32
        var attempts = 0
        repeat {
            temporary = "\(folder)/.\(base).\(UInt32.random(in: 0...UInt32.max)).tmp"
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            attempts += 1
        } while fd < 0 && errno == EEXIST && attempts < 16
        guard fd >= 0 else { throw ImageFileError(path: path, operation: "open of a temporary file in \(folder)", code: errno) }
        do throws(ImageFileError) {
            if let mode, fchmod(fd, mode) != 0 { throw ImageFileError(path: path, operation: "fchmod", code: errno) }
            try writeAll(fd, data, path: path)
            if fsync(fd) != 0 { throw ImageFileError(path: path, operation: "fsync", code: errno) }
            let closed = close(fd)
            fd = -1
            if closed != 0 { throw ImageFileError(path: path, operation: "close", code: errno) }
            if rename(temporary, target) != 0 { throw ImageFileError(path: path, operation: "rename", code: errno) }
        } catch {
            if fd >= 0 { close(fd) }
            unlink(temporary)
            throw error
        }
    }

    /// Opens `path` as it is (a device, a FIFO, a symlink's missing target) and writes into it.
    private static func writeThrough(_ path: String, data: [UInt8], create: Bool) throws(ImageFileError) {
        let fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | (create ? O_CREAT | O_TRUNC : 0), 0o666)
        guard fd >= 0 else { throw ImageFileError(path: path, operation: "open", code: errno) }
        defer { close(fd) }
        try writeAll(fd, data, path: path)
    }

    private static func writeAll(_ fd: Int32, _ data: [UInt8], path: String) throws(ImageFileError) {
        var failure: Int32?
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
        }
        if let failure { throw ImageFileError(path: path, operation: "write", code: failure) }
    }

    /// The folder part of `path`: "." for a bare name, "/" for a name in the root.
    private static func folderName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
