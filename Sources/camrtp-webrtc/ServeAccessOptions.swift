import ArgumentParser
import CamrtpCLI

/// Who may watch what `serve` serves, and how it is reached: viewer tokens, HTTPS, CORS origins,
/// and the token for `/metrics`. Tokens come from files or the environment, never from the
/// command line, which `ps` shows to everyone.
struct ServeAccessOptions: ParsableArguments {
    static let tokenVariable = "CAMRTP_SERVE_TOKEN"

    @Option(help: ArgumentHelp(
        "Viewers must send one of the bearer tokens in this file (one per line; # comments) with their offer. Re-read on SIGHUP. CAMRTP_SERVE_TOKEN adds one.",
        valueName: "file"))
    var tokenFile: String?

    @Flag(help: "Let anyone who reaches --http watch, even on an address other machines can reach, without a token.")
    var noAuth = false

    @Option(help: ArgumentHelp("Serve HTTPS with this certificate chain (PEM, such as certbot's fullchain.pem); with --tls-key. Re-read on SIGHUP.", valueName: "file"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("The private key of --tls-cert (PEM, such as certbot's privkey.pem), readable by its owner only.", valueName: "file"))
    var tlsKey: String?

    @Option(name: .customLong("allow-origin"), help: ArgumentHelp(
        "Only pages of this origin (https://example.org) may call the endpoint from a browser; repeat for more. Any origin by default.",
        valueName: "origin"))
    var allowedOrigins: [String] = []

    @Option(help: ArgumentHelp(
        "Bearer tokens for GET /metrics, one per line, instead of the viewers' tokens. Re-read on SIGHUP.", valueName: "file"))
    var metricsTokenFile: String?

    func validate() throws {
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together: give both or neither") }
        if noAuth && tokenFile != nil { throw ValidationError("--no-auth and --token-file contradict each other: drop one") }
        for origin in allowedOrigins where !Self.isOrigin(origin) {
            throw ValidationError("--allow-origin \"\(origin)\" is not an origin: scheme and host, and a port if any, such as https://example.org")
        }
    }

    /// An origin as browsers send it (RFC 6454 §6.1): `scheme://host[:port]`, nothing after.
    private static func isOrigin(_ text: String) -> Bool {
        for scheme in ["http://", "https://"] where text.lowercased().hasPrefix(scheme) {
            let rest = text.dropFirst(scheme.count)
            return !rest.isEmpty && !rest.contains(where: { "/?#@ ".contains($0) })
        }
        return false
    }
}
