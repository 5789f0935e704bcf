import CSSL
import Transport
#if canImport(Glibc)
import Glibc
#endif

/// A failed DTLS step: what was being done and why, with OpenSSL's code and text where OpenSSL
/// said no. Example: `DTLSError: DTLS handshake failed: the peer's certificate has fingerprint
/// sha-256 12:…, but the SDP promised sha-256 AB:…`.
public struct DTLSError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: Sendable, Hashable {
        /// OpenSSL refused: the first packed code of its error queue (`ERR_get_error`, 0 when it queued
        /// nothing) and its text.
        case openSSL(code: UInt, text: String)
        /// The peer's certificate does not hash to the `a=fingerprint` of its SDP (RFC 8122 section 5).
        case fingerprintMismatch(expected: DTLSFingerprint, actual: DTLSFingerprint)
        /// The handshake ended without a peer certificate to compare with the fingerprint.
        case peerCertificateMissing
        /// The handshake ended without an SRTP protection profile both sides offer (RFC 5764 section 4.1.1).
        case noCommonSRTPProfile
        /// The suite has no DTLS-SRTP protection profile (RFC 5764 section 4.1.2, RFC 7714 section 14.2).
        case suiteWithoutDTLSProfile(SRTPSuite)
        /// The exported keys do not make an SRTP master key.
        case srtpKey(SRTPKeyError)
        /// An `a=fingerprint` value that is not `hash-func HEX:HEX:…` with a known hash.
        case malformedFingerprint(String)
        /// A file that could not be read: its path and `errno`.
        case unreadableFile(path: String, errno: Int32)
        /// A file without the PEM block asked for; the labels it does hold.
        case missingPEMBlock(path: String, expected: String, found: [String])
        /// A private key file that needs a passphrase.
        case encryptedPrivateKey(path: String)
        /// A certificate and a private key that are not one pair.
        case keyDoesNotMatchCertificate(certificatePath: String, keyPath: String)
        /// An option outside what the session supports.
        case invalidConfiguration(String)
    }

    public let operation: String
    public let reason: Reason

    public init(_ operation: String, _ reason: Reason) {
        self.operation = operation
        self.reason = reason
    }

    /// The error OpenSSL queued for `operation` on this thread; empties the queue. `sslError`, the
    /// `SSL_get_error` result, names the failure when nothing was queued.
    static func openSSL(_ operation: String, sslError: Int32? = nil) -> DTLSError {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else {
            let text = sslError.map { "SSL_get_error \($0), no error queued" } ?? "no error queued"
            return DTLSError(operation, .openSSL(code: 0, text: text))
        }
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        let bytes = text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return DTLSError(operation, .openSSL(code: code, text: String(decoding: bytes, as: UTF8.self)))
    }

    public var description: String {
        "DTLSError: \(operation) failed: \(reasonText)"
    }

    private var reasonText: String {
        switch reason {
        case .openSSL(let code, let text):
            return code == 0 ? text : "\(text) (OpenSSL error 0x\(String(code, radix: 16)))"
        case .fingerprintMismatch(let expected, let actual):
            return "the peer's certificate has fingerprint \(actual.sdpValue), but the SDP promised \(expected.sdpValue)"
        case .peerCertificateMissing:
            return "the peer presented no certificate to compare with its fingerprint"
        case .noCommonSRTPProfile:
            return "the peer agreed to no SRTP protection profile we offered (use_srtp, RFC 5764)"
        case .suiteWithoutDTLSProfile(let suite):
            return "\(suite.sdpName) has no DTLS-SRTP protection profile; use "
                + SRTPSuite.allCases.filter { $0.dtlsProfileName != nil }.map(\.sdpName).joined(separator: ", ")
        case .srtpKey(let error):
            return error.description
        case .malformedFingerprint(let value):
            return "\"\(value)\" is not a fingerprint such as \"sha-256 AB:CD:…\" (RFC 8122 section 5)"
        case .unreadableFile(let path, let code):
            return "cannot read \(path): \(String(cString: strerror(code))) (errno \(code))"
        case .missingPEMBlock(let path, let expected, let found):
            let holds = found.isEmpty ? "no PEM block at all" : "only " + found.map { "\"\($0)\"" }.joined(separator: ", ")
            return "\(path) holds no PEM \(expected), \(holds)"
        case .encryptedPrivateKey(let path):
            return "the private key in \(path) is encrypted; give an unencrypted key"
        case .keyDoesNotMatchCertificate(let certificatePath, let keyPath):
            return "the private key in \(keyPath) does not belong to the certificate in \(certificatePath)"
        case .invalidConfiguration(let text):
            return text
        }
    }
}
