/// `a=setup` (RFC 4145 section 4, RFC 8842 section 5): which end opens the DTLS association.
/// `active` is the DTLS client; offers say `actpass` (or, since RFC 8842, a fixed role).
public enum SetupRole: String, Sendable, Hashable, CaseIterable {
    case active, passive, actpass, holdconn

    /// The DTLS role this setup value gives its writer; nil for `actpass` and `holdconn`.
    public var dtlsRole: DTLSRole? {
        switch self {
        case .active: .client
        case .passive: .server
        case .actpass, .holdconn: nil
        }
    }

    init(sdpValue: Substring) throws(SDPParseError.Reason) {
        guard let role = SetupRole(rawValue: String(SDPText.trimmingBlanks(sdpValue))) else {
            throw .invalid(field: "a=setup", problem: "expected active, passive, actpass or holdconn, found \(quoted(sdpValue))")
        }
        self = role
    }
}

/// The end of the DTLS handshake one side plays: the client sends the ClientHello.
public enum DTLSRole: String, Sendable, Hashable {
    case client, server

    /// The `a=setup` value that states this role in an answer (RFC 8842 section 5.3).
    public var setupRole: SetupRole { self == .client ? .active : .passive }
    public var peer: DTLSRole { self == .client ? .server : .client }
}

/// A hash function name from the IANA "Hash Function Textual Names" registry, lower case
/// (RFC 8122 section 5: compared without regard to case).
public struct HashFunction: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue.lowercased()
    }

    public static let sha1 = HashFunction(rawValue: "sha-1")
    public static let sha224 = HashFunction(rawValue: "sha-224")
    public static let sha256 = HashFunction(rawValue: "sha-256")
    public static let sha384 = HashFunction(rawValue: "sha-384")
    public static let sha512 = HashFunction(rawValue: "sha-512")

    /// The digest size in bytes for the functions above; nil for others (checked loosely).
    public var digestLength: Int? {
        switch rawValue {
        case "sha-1": 20
        case "sha-224": 28
        case "sha-256": 32
        case "sha-384": 48
        case "sha-512": 64
        case "md5", "md2": 16
        default: nil
        }
    }

    public var description: String { rawValue }
}

/// `a=fingerprint:<hash> <digest>` (RFC 8122 section 5): the hash of the DTLS certificate the
/// writer will present, as colon-separated upper-case hex pairs.
public struct Fingerprint: Sendable, Hashable, CustomStringConvertible {
    public var hashFunction: HashFunction
    public var digest: [UInt8]

    /// A longer digest than any registered function produces is refused.
    static let maxDigestLength = 64

    public init(hashFunction: HashFunction, digest: [UInt8]) {
        self.hashFunction = hashFunction
        self.digest = digest
    }

    /// `sha-256 AB:CD:...`: the attribute's value.
    public var sdpValue: String {
        "\(hashFunction.rawValue) \(Self.hex(digest))"
    }

    public var description: String { sdpValue }

    /// Parses `sha-256 AB:CD:...`; lower-case hex is accepted.
    public init(sdpValue: some StringProtocol) throws(SDPParseError) {
        do throws(SDPParseError.Reason) {
            try self.init(parsing: Substring(sdpValue))
        } catch {
            throw SDPParseError(lineNumber: nil, reason: error)
        }
    }

    init(parsing value: Substring) throws(SDPParseError.Reason) {
        let parts = try SDPText.tokens(value, count: 2, field: "a=fingerprint", form: "<hash-function> <XX:XX:...>")
        hashFunction = HashFunction(rawValue: String(parts[0]))
        let pairs = parts[1].unicodeScalars.split(separator: ":", omittingEmptySubsequences: false)
        guard pairs.count <= Self.maxDigestLength else {
            throw .limitExceeded(what: "a=fingerprint digest length", limit: Self.maxDigestLength)
        }
        var digest: [UInt8] = []
        digest.reserveCapacity(pairs.count)
        for pair in pairs {
            let nibbles = pair.compactMap(Self.hexValue)
            guard pair.count == 2, nibbles.count == 2 else {
                throw .invalid(field: "a=fingerprint", problem: "expected hex pairs separated by colons, found \(quoted(parts[1]))")
            }
            digest.append(nibbles[0] << 4 | nibbles[1])
        }
        if let expected = hashFunction.digestLength, expected != digest.count {
            throw .invalid(field: "a=fingerprint", problem: "a \(hashFunction) digest has \(expected) bytes, found \(digest.count)")
        }
        self.digest = digest
    }

    private static func hexValue(_ scalar: Unicode.Scalar) -> UInt8? {
        switch scalar {
        case "0"..."9": UInt8(scalar.value - 0x30)
        case "A"..."F": UInt8(scalar.value - 0x37)
        case "a"..."f": UInt8(scalar.value - 0x57)
        default: nil
        }
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF".unicodeScalars)
        var scalars = String.UnicodeScalarView()
        for (index, byte) in bytes.enumerated() {
            if index > 0 { scalars.append(":") }
            scalars.append(digits[Int(byte >> 4)])
            scalars.append(digits[Int(byte & 0x0F)])
        }
        return String(scalars)
    }
}
