import CSSL

/// A certificate fingerprint as SDP carries it: `a=fingerprint:sha-256 AB:CD:…` (RFC 8122 section 5),
/// the hash of the DER certificate in upper-case hex pairs joined by colons.
public struct DTLSFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// The hash functions RFC 8122 names that are still fit for the job (SHA-1 and MD5 are not).
    public enum HashFunction: String, Sendable, Hashable, CaseIterable {
        case sha256 = "sha-256"
        case sha384 = "sha-384"
        case sha512 = "sha-512"

        /// Digest bytes.
        public var length: Int {
            switch self {
            case .sha256: 32
            case .sha384: 48
            case .sha512: 64
            }
        }

        var digest: OpaquePointer? {
            switch self {
            case .sha256: EVP_sha256()
            case .sha384: EVP_sha384()
            case .sha512: EVP_sha512()
            }
        }
    }

    public let hashFunction: HashFunction
    public let digest: [UInt8]

    /// Parses the value of an `a=fingerprint` attribute, `sha-256 AB:CD:…`. The hash name is
    /// case-insensitive (RFC 8122 section 5); lower-case hex is accepted too.
    public init(sdpValue: String) throws(DTLSError) {
        let malformed = DTLSError("parse a=fingerprint", .malformedFingerprint(sdpValue))
        let fields = sdpValue.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count == 2, let hashFunction = HashFunction(rawValue: fields[0].lowercased()) else {
            throw malformed
        }
        var digest: [UInt8] = []
        for pair in fields[1].split(separator: ":", omittingEmptySubsequences: false) {
            guard pair.utf8.count == 2, pair.allSatisfy(\.isHexDigit), let byte = UInt8(pair, radix: 16) else {
                throw malformed
            }
            digest.append(byte)
        }
        guard digest.count == hashFunction.length else { throw malformed }
        self.hashFunction = hashFunction
        self.digest = digest
    }

    /// The fingerprint of a DER-encoded `X509` certificate.
    init(of certificate: OpaquePointer, hashFunction: HashFunction) throws(DTLSError) {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, hashFunction.digest, &digest, &length) == 1 else {
            throw DTLSError.openSSL("X509_digest \(hashFunction.rawValue)")
        }
        self.hashFunction = hashFunction
        self.digest = Array(digest.prefix(Int(length)))
    }

    /// The attribute value: `sha-256 AB:CD:…`.
    public var sdpValue: String {
        hashFunction.rawValue + " " + digest.map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return byte < 0x10 ? "0" + hex : hex
        }.joined(separator: ":")
    }

    public var description: String { sdpValue }
}
