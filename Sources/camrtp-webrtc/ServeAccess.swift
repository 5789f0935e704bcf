import CamrtpCLI
import Glibc
import HTTPAccess
import Logging

/// What `ServeAccessOptions` asked for, loaded and checked: the viewers' and `/metrics`'
/// authenticators and the TLS credentials. At start-up a bad file is one line and exit 2; on
/// SIGHUP (`reload`) the files are read again, and one that went bad keeps what was in use and
/// says so in one warning.
struct ServeAccess: Sendable {
    let viewers: BearerAuthenticator?
    let metrics: BearerAuthenticator?
    let tls: TLSCredentialStore?
    private let options: ServeAccessOptions
    private let environmentTokens: BearerTokenSet?
    private let logger = Logger(label: "camrtp.serve")

    /// Refuses to serve a network address to everyone unless `--no-auth` says so.
    init(_ options: ServeAccessOptions, listeningOn host: String, http: String) throws {
        self.options = options
        environmentTokens = try Self.environmentTokens()
        let tokens = try Self.tokens(file: options.tokenFile, option: "--token-file", adding: environmentTokens)
        if tokens == nil && !options.noAuth && !ListenHost.isLoopback(host) {
            throw CLIError.usage(
                "--http \(http) can be reached from other machines: give viewers a token with --token-file FILE "
                    + "(or \(ServeAccessOptions.tokenVariable)), or pass --no-auth to let anyone watch")
        }
        if tokens != nil && options.noAuth {
            throw CLIError.usage("--no-auth and \(ServeAccessOptions.tokenVariable) contradict each other: drop one")
        }
        viewers = tokens.map { BearerAuthenticator(tokens: $0) }
        metrics = try Self.tokens(file: options.metricsTokenFile, option: "--metrics-token-file", adding: nil)
            .map { BearerAuthenticator(tokens: $0) }
        if let certificate = options.tlsCert, let key = options.tlsKey {
            do {
                tls = try TLSCredentialStore(certificatePath: certificate, privateKeyPath: key)
            } catch {
                throw CLIError.usage("--tls-cert/--tls-key: \(error)")
            }
        } else {
            tls = nil
        }
    }

    var scheme: String { tls == nil ? "http" : "https" }

    /// SIGHUP: the token files and the certificate again. Sessions already up are not touched.
    func reload() {
        var reloaded: [String] = []
        if let viewers, let file = options.tokenFile {
            do {
                var tokens = try TokenFile.load(path: file).tokens
                if let environmentTokens { tokens = tokens.union(environmentTokens) }
                viewers.replaceTokens(tokens)
                reloaded.append("--token-file (\(Self.counted(tokens.count)))")
            } catch {
                logger.warning("--token-file \(file) \(error); keeping the \(Self.counted(viewers.tokenCount)) in use")
            }
        }
        if let metrics, let file = options.metricsTokenFile {
            do {
                let tokens = try TokenFile.load(path: file).tokens
                metrics.replaceTokens(tokens)
                reloaded.append("--metrics-token-file (\(Self.counted(tokens.count)))")
            } catch {
                logger.warning("--metrics-token-file \(file) \(error); keeping the \(Self.counted(metrics.tokenCount)) in use")
            }
        }
        if let tls {
            do {
                try tls.reload()
                reloaded.append("the certificate (valid until \(Self.date(tls.credentials.notValidAfter)))")
            } catch {
                logger.warning("--tls-cert/--tls-key: \(error); keeping the certificate in use")
            }
        }
        if !reloaded.isEmpty { printNote("reloaded " + reloaded.joined(separator: " and ")) }
    }

    private static func tokens(file: String?, option: String, adding extra: BearerTokenSet?) throws -> BearerTokenSet? {
        guard let file else { return extra }
        do {
            let tokens = try TokenFile.load(path: file).tokens
            return extra.map { tokens.union($0) } ?? tokens
        } catch {
            throw CLIError.usage("\(option) \(file) \(error)")
        }
    }

    private static func environmentTokens() throws -> BearerTokenSet? {
        guard let value = getenv(ServeAccessOptions.tokenVariable) else { return nil }
        do {
            return try TokenFile(parsing: Array(String(cString: value).utf8)).tokens
        } catch {
            throw CLIError.usage("\(ServeAccessOptions.tokenVariable) \(error): set it to one token of letters, digits and - . _ ~ + /")
        }
    }

    private static func counted(_ count: Int) -> String {
        count == 1 ? "1 token" : "\(count) tokens"
    }

    /// `2026-03-01 12:00 UTC`.
    private static func date(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M UTC", &parts)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
