import HummingbirdCore
import HummingbirdTLS
import NIOCore
import NIOSSL
import Synchronization

/// The certificate a TLS server presents, replaceable while it serves: `reload()` reads the files
/// again (a certificate renewed by certbot, on SIGHUP) and every handshake after it uses the new
/// one, while connections already up keep theirs. A reload that fails keeps the credentials in use.
///
/// The server runs on Hummingbird's TLS (swift-nio-ssl); NIOSSL's per-handshake context callback
/// hands each new connection the current chain and key.
public final class TLSCredentialStore: Sendable {
    public let certificatePath: String
    public let privateKeyPath: String
    private let current: Mutex<TLSCredentials>

    public init(certificatePath: String, privateKeyPath: String) throws(TLSCredentialsError) {
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
        current = Mutex(try TLSCredentials.load(certificatePath: certificatePath, privateKeyPath: privateKeyPath))
    }

    public var credentials: TLSCredentials { current.withLock { $0 } }

    /// Reads both files again; on failure the credentials in use stay.
    public func reload() throws(TLSCredentialsError) {
        let fresh = try TLSCredentials.load(certificatePath: certificatePath, privateKeyPath: privateKeyPath)
        current.withLock { $0 = fresh }
    }

    /// A server of HTTP/1.1 over TLS 1.2 or later that presents the current credentials.
    public func serverBuilder() throws -> HTTPServerBuilder {
        let initial = credentials
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: initial.certificateChain.map { .certificate($0) }, privateKey: .privateKey(initial.privateKey))
        configuration.minimumTLSVersion = .tlsv12
        configuration.sslContextCallback = { [self] _, promise in
            let credentials = self.credentials
            var override = NIOSSLContextConfigurationOverride()
            override.certificateChain = credentials.certificateChain.map { .certificate($0) }
            override.privateKey = .privateKey(credentials.privateKey)
            promise.succeed(override)
        }
        return try .tls(.http1(), tlsConfiguration: configuration)
    }
}
