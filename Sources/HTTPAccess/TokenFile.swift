import Glibc

/// A file of bearer tokens, one per line (`--token-file`): blank lines and lines starting with
/// `#` are skipped, spaces around a token are trimmed, and every token must be a `b64token`
/// (RFC 6750 §2.1) that a client can send in a header. Errors name the file and the line, never
/// a token.
public struct TokenFile: Sendable, Equatable {
    /// A larger file is refused: it is a list of secrets, not a database.
    public static let maximumBytes = 1 << 20
    public static let maximumTokenBytes = 1024

    public let tokens: BearerTokenSet

    public init(parsing contents: [UInt8]) throws(TokenFileError) {
        guard contents.count <= Self.maximumBytes else { throw .tooLarge(bytes: contents.count) }
        var tokens: [[UInt8]] = []
        for (number, line) in contents.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let token = Self.trimmed(line)
            if token.isEmpty || token.first == UInt8(ascii: "#") { continue }
            guard token.count <= Self.maximumTokenBytes else {
                throw .invalidLine(number + 1, "the token is longer than \(Self.maximumTokenBytes) bytes")
            }
            guard BearerCredentials.isB64Token(token) else {
                throw .invalidLine(number + 1, "a token may hold only letters, digits and - . _ ~ + / (then = at the end)")
            }
            if !tokens.contains(where: { $0.elementsEqual(token) }) { tokens.append(Array(token)) }
        }
        guard !tokens.isEmpty else { throw .noToken }
        self.tokens = BearerTokenSet(tokens)
    }

    /// Reads and parses the file at `path`.
    public static func load(path: String) throws(TokenFileError) -> TokenFile {
        try TokenFile(parsing: try BoundedFile.read(path, limit: maximumBytes).get())
    }

    private static func trimmed(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var line = line
        while let last = line.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { line.removeLast() }
        while let first = line.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { line.removeFirst() }
        return line
    }
}

/// Why a token file cannot be used; `description` is the reason, the caller names the file.
public enum TokenFileError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(String)
    case tooLarge(bytes: Int)
    case invalidLine(Int, String)
    case noToken

    public var description: String {
        switch self {
        case .unreadable(let reason): reason
        case .tooLarge(let bytes): "is \(bytes) bytes long, more than \(TokenFile.maximumBytes)"
        case .invalidLine(let line, let reason): "line \(line): \(reason)"
        case .noToken: "holds no token (one per line; blank lines and # comments are skipped)"
        }
    }
}

/// A whole small file, read with a bound, as the token, certificate and key files are.
enum BoundedFile {
    static func read(_ path: String, limit: Int) -> Result<[UInt8], TokenFileError> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.unreadable("cannot be read: \(String(cString: strerror(errno)))")) }
        defer { close(fd) }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(.unreadable("cannot be read: \(String(cString: strerror(errno)))"))
            }
            if count == 0 { return .success(contents) }
            contents.append(contentsOf: chunk[..<count])
            if contents.count > limit { return .failure(.tooLarge(bytes: contents.count)) }
        }
    }
}
