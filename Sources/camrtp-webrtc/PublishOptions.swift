import ArgumentParser
import CamrtpCLI
import HTTPAccess
import WHIP

/// How `publish` reaches a WHIP endpoint: its URL, token, trusted CAs, request timeout and how
/// long it keeps reconnecting. The WebRTC side is `WebRTCOptions`.
struct PublishOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The WHIP endpoint's URL (RFC 9725), http:// or https://.", valueName: "url"))
    var whip: String

    @Option(help: ArgumentHelp("Send Authorization: Bearer TOKEN with every WHIP request.", valueName: "token"))
    var bearer: String?

    @Option(help: ArgumentHelp(
        "Read the bearer token from the first line of this file instead (the command line shows in ps).", valueName: "file"))
    var bearerFile: String?

    @Option(help: ArgumentHelp(
        "Also trust the CA certificates in this PEM file for an https:// endpoint (a private CA); the system's stay trusted.",
        valueName: "file"))
    var caFile: String?

    @Option(help: ArgumentHelp("Seconds each WHIP request (POST, DELETE) may take.", valueName: "seconds"))
    var httpTimeout: Double = 10

    @Option(help: ArgumentHelp(
        "Give up after N reconnection attempts in a row that find no connection (0: never reconnect). Without it camrtp reconnects for as long as it runs.",
        valueName: "n"))
    var reconnectLimit: Int?

    /// `--bearer`, or the first token of `--bearer-file`.
    func bearerToken() throws -> String? {
        guard let bearerFile else { return bearer }
        do {
            return try TokenFile.load(path: bearerFile).tokens.first.map { String(decoding: $0, as: UTF8.self) }
        } catch {
            throw CLIError.usage("--bearer-file \(bearerFile) \(error)")
        }
    }

    func validate() throws {
        if ResourceURL(parsing: whip) == nil {
            throw ValidationError("--whip \"\(whip)\" is not an http:// or https:// URL, such as http://127.0.0.1:8080/whip")
        }
        if let bearer, bearer.isEmpty || bearer.contains(where: { $0 == "\r" || $0 == "\n" }) {
            throw ValidationError("--bearer must be a non-empty token on one line")
        }
        if bearer != nil && bearerFile != nil { throw ValidationError("--bearer and --bearer-file contradict each other: give one") }
        if let reconnectLimit, reconnectLimit < 0 {
            throw ValidationError("--reconnect-limit must be 0 or more, not \(reconnectLimit)")
        }
        guard httpTimeout > 0 && httpTimeout <= 600 else {
            throw ValidationError("--http-timeout must be more than 0 and at most 600 seconds, not \(httpTimeout)")
        }
    }
}
