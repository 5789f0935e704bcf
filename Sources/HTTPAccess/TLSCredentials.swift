import Glibc
import NIOSSL

/// A server's certificate chain and private key, read from PEM files (certbot's `fullchain.pem`
/// and `privkey.pem`) and checked before they are used: the key file must be private to its
/// owner (as ssh refuses a key that group or others may read), both files must parse, and the
/// key must be the certificate's.
public struct TLSCredentials: Sendable {
    /// Larger files are refused: a chain is a few kB.
    public static let maximumFileBytes = 1 << 20

    public let certificateChain: [NIOSSLCertificate]
    public let privateKey: NIOSSLPrivateKey

    /// When the first certificate of the chain (the server's own) stops being valid, in seconds
    /// since 1970.
    public var notValidAfter: Int { certificateChain.first.map { Int($0.notValidAfter) } ?? 0 }

    public static func load(certificatePath: String, privateKeyPath: String) throws(TLSCredentialsError) -> TLSCredentials {
        let keyBytes = try readPrivate(privateKeyPath)
        let certificateBytes: [UInt8]
        switch BoundedFile.read(certificatePath, limit: maximumFileBytes) {
        case .success(let bytes): certificateBytes = bytes
        case .failure(let error): throw .unreadable(path: certificatePath, reason: error.description)
        }
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(certificateBytes)
        } catch {
            throw .noCertificate(path: certificatePath)
        }
        guard !chain.isEmpty else { throw .noCertificate(path: certificatePath) }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(bytes: keyBytes, format: .pem)
        } catch {
            throw .noPrivateKey(path: privateKeyPath)
        }
        // BoringSSL checks that the key belongs to the chain's first certificate.
        do {
            _ = try NIOSSLContext(configuration: .makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key)))
        } catch {
            throw .mismatch(certificatePath: certificatePath, privateKeyPath: privateKeyPath)
        }
        return TLSCredentials(certificateChain: chain, privateKey: key)
    }

    /// The key file's bytes, once its mode (of the file opened, not of the name) shows that
    /// nobody but its owner may read or write it.
    private static func readPrivate(_ path: String) throws(TLSCredentialsError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadable(path: path, reason: "cannot be read: \(String(cString: strerror(errno)))") }
        var status = stat()
        let statted = fstat(fd, &status) == 0
        close(fd)
        guard statted else { throw .unreadable(path: path, reason: "cannot be read: \(String(cString: strerror(errno)))") }
        let mode = Int(status.st_mode) & 0o777
        guard mode & 0o077 == 0 else { throw .keyNotPrivate(path: path, mode: mode) }
        switch BoundedFile.read(path, limit: maximumFileBytes) {
        case .success(let bytes): return bytes
        case .failure(let error): throw .unreadable(path: path, reason: error.description)
        }
    }
}

/// Why a certificate or key cannot be used; each says which file and what to do.
public enum TLSCredentialsError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    /// Group or others may read or write the key: anyone on the machine could take it.
    case keyNotPrivate(path: String, mode: Int)
    case noCertificate(path: String)
    case noPrivateKey(path: String)
    case mismatch(certificatePath: String, privateKeyPath: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "\(path) \(reason)"
        case .keyNotPrivate(let path, let mode):
            "\(path) may be read by others (mode \(String(mode, radix: 8))): a private key must be private; chmod 600 \(path)"
        case .noCertificate(let path): "\(path) holds no PEM certificate (-----BEGIN CERTIFICATE-----)"
        case .noPrivateKey(let path): "\(path) holds no unencrypted PEM private key"
        case .mismatch(let certificatePath, let privateKeyPath):
            "\(privateKeyPath) is not the private key of the certificate in \(certificatePath)"
        }
    }
}
