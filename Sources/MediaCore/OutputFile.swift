#if canImport(Glibc)
import Glibc
#endif

/// A path that cannot take the output, with the reason in words.
public struct OutputFileError: Error, CustomStringConvertible, Sendable, Equatable {
    public let path: String
    public let reason: String
    /// The errno behind it, when a system call failed.
    public let code: Int32?

    public init(path: String, reason: String, code: Int32? = nil) {
        self.path = path
        self.reason = reason
        self.code = code
    }

    init(path: String, operation: String, code: Int32) {
        self.init(path: path, reason: "\(operation) failed: \(String(cString: strerror(code))) (errno \(code))", code: code)
    }

    /// True when the disk failed or filled up: a run-time failure, not the user's path.
    public var isDiskFailure: Bool { [EIO, ENOSPC, EDQUOT, EFBIG].contains(code ?? 0) }

    public var description: String { "\(path): \(reason)" }
}

/// A file written to a path a person named, without ever changing what kind of file the path
/// is. A regular file (or a symlink to one) is written to a temporary file beside it and renamed
/// over it by `commit()`, so a reader never sees half a file, a failed write leaves the old file
/// as it was, and a symlink stays a symlink. A device, FIFO or socket (`/dev/null`, a pipe) is
/// written through as it is. A directory is refused. `camrtp record` and `snapshot` both write
/// through it.
public final class OutputFile {
    /// The path as it was named, for messages.
    public let path: String
    /// False for a FIFO, socket or terminal: `write(_:at:)` cannot go back.
    public let isSeekable: Bool
    private var fd: Int32
    /// The temporary file and the path it is renamed to, for a regular file.
    private let replacement: (temporary: String, target: String)?

    /// How a path takes the bytes.
    private enum Target {
        /// A regular file, new or existing (then `mode` keeps its permissions), at its resolved path.
        case replace(path: String, mode: mode_t?)
        /// An existing device, FIFO or socket; or the missing target of a symlink, created.
        case writeThrough(create: Bool)
    }

    /// Checks that `path` could take a file (no directory, writable, in a folder that exists and
    /// is writable) without creating anything. Call it before the work that makes the output.
    public static func check(_ path: String) throws(OutputFileError) {
        _ = try target(of: path)
    }

    /// Opens `path` for writing by the rules above. `ownerOnly` files (keys, say) get 0600 and
    /// an existing file is narrowed to its owner; otherwise a new file gets 0666 less the umask
    /// and an existing one keeps its permissions.
    public init(path: String, ownerOnly: Bool = false) throws(OutputFileError) {
        self.path = path
        switch try Self.target(of: path) {
        case .replace(let target, let mode):
            let created = try Self.createTemporary(beside: target, reportedAs: path, ownerOnly: ownerOnly)
            let permissions = ownerOnly ? (mode ?? 0o600) & 0o600 : mode
            if let permissions, fchmod(created.fd, permissions) != 0 {
                let code = errno
                close(created.fd)
                unlink(created.path)
                throw OutputFileError(path: path, operation: "fchmod", code: code)
            }
            fd = created.fd
            replacement = (created.path, target)
        case .writeThrough(let create):
            fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | (create ? O_CREAT | O_TRUNC : 0), ownerOnly ? 0o600 : 0o666)
            guard fd >= 0 else { throw OutputFileError(path: path, operation: "open", code: errno) }
            replacement = nil
        }
        isSeekable = lseek(fd, 0, SEEK_CUR) >= 0
    }

    /// An output that was never committed leaves no temporary behind and the old file untouched.
    deinit {
        guard fd >= 0 else { return }
        close(fd)
        if let replacement { unlink(replacement.temporary) }
    }

    /// Writes `data` whole at `path`: `init`, `write`, `commit`.
    public static func write(_ data: [UInt8], to path: String, ownerOnly: Bool = false) throws(OutputFileError) {
        let file = try OutputFile(path: path, ownerOnly: ownerOnly)
        try file.write(data)
        try file.commit()
    }

    /// Appends `bytes`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(OutputFileError) {
        var offset = 0
        while offset < bytes.count, let base = bytes.baseAddress {
            let written = Glibc.write(fd, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw OutputFileError(path: path, operation: "write", code: errno)
            }
            offset += written
        }
    }

    public func write(_ bytes: [UInt8]) throws(OutputFileError) {
        var failure: OutputFileError?
        bytes.withUnsafeBytes { buffer in
            do throws(OutputFileError) { try write(buffer) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Overwrites bytes at `offset` (a header that is final only at the end); a seekable output only.
    public func write(_ bytes: [UInt8], at offset: Int) throws(OutputFileError) {
        var failure: Int32?
        bytes.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count, let base = buffer.baseAddress {
                let written = pwrite(fd, base + done, buffer.count - done, off_t(offset + done))
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                done += written
            }
        }
        if let failure { throw OutputFileError(path: path, operation: "pwrite", code: failure) }
    }

    /// Finishes the output: a regular file is flushed to disk and renamed into place; anything
    /// else is closed. Nothing is written after this.
    public func commit() throws(OutputFileError) {
        guard fd >= 0 else { return }
        defer { fd = -1 }
        do throws(OutputFileError) {
            if replacement != nil, fsync(fd) != 0 { throw OutputFileError(path: path, operation: "fsync", code: errno) }
            let closed = close(fd)
            let closeError = errno
            fd = -1
            if closed != 0 { throw OutputFileError(path: path, operation: "close", code: closeError) }
            if let replacement, rename(replacement.temporary, replacement.target) != 0 {
                throw OutputFileError(path: path, operation: "rename", code: errno)
            }
        } catch {
            if fd >= 0 { close(fd) }
            if let replacement { unlink(replacement.temporary) }
            throw error
        }
    }

    private static func target(of path: String) throws(OutputFileError) -> Target {
        guard !path.isEmpty else { throw OutputFileError(path: path, reason: "an empty path; name a file") }
        var status = stat()
        if stat(path, &status) == 0 {
            let type = status.st_mode & S_IFMT
            guard type != S_IFDIR else { throw OutputFileError(path: path, reason: "is a directory; name a file in it") }
            guard access(path, W_OK) == 0 else { throw OutputFileError(path: path, operation: "access", code: errno) }
            guard type == S_IFREG else { return .writeThrough(create: false) }
            guard let resolved = realpath(path, nil) else { throw OutputFileError(path: path, operation: "realpath", code: errno) }
            defer { free(resolved) }
            let target = String(cString: resolved)
            try checkFolder(of: target, reportedAs: path)
            return .replace(path: target, mode: status.st_mode & 0o7777)
        }
        guard errno == ENOENT else { throw OutputFileError(path: path, operation: "stat", code: errno) }
        // A symlink to nothing yet: create its target, and keep the link.
        if lstat(path, &status) == 0 { return .writeThrough(create: true) }
        try checkFolder(of: path, reportedAs: path)
        return .replace(path: path, mode: nil)
    }

    private static func checkFolder(of path: String, reportedAs reported: String) throws(OutputFileError) {
        let folder = folderName(path)
        var status = stat()
        guard stat(folder, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw OutputFileError(path: reported, reason: "the folder \(folder) does not exist")
        }
        guard access(folder, W_OK) == 0 else {
            throw OutputFileError(path: reported, reason: "the folder \(folder) is not writable", code: EACCES)
        }
    }

    /// A new, empty file beside `target` (a dot file with a random suffix), open for writing.
    private static func createTemporary(
        beside target: String, reportedAs path: String, ownerOnly: Bool
    ) throws(OutputFileError) -> (path: String, fd: Int32) {
        let folder = folderName(target)
        let base = target.split(separator: "/").last.map(String.init) ?? "output"
        var attempts = 0
        while true {
            let temporary = "\(folder)/.\(base).\(UInt32.random(in: 0...UInt32.max)).tmp"
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, ownerOnly ? 0o600 : 0o666)
            if fd >= 0 { return (temporary, fd) }
            attempts += 1
            guard errno == EEXIST, attempts < 16 else {
                throw OutputFileError(path: path, operation: "open of a temporary file in \(folder)", code: errno)
            }
        }
    }

    /// The folder part of `path`: "." for a bare name, "/" for a name in the root.
    private static func folderName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
