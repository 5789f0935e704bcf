import ArgumentParser
import CamrtpCLI

/// Where `serve` listens (`--http`) and for how many viewers. Each viewer's WebRTC connection is
/// set up from `WebRTCOptions`.
struct ServeOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Address to serve the viewer page and the WHEP endpoint on, HOST:PORT ([::1]:8080 for IPv6; port 0 picks a free one).",
        valueName: "host:port"))
    var http: String = "127.0.0.1:8080"

    @Option(help: ArgumentHelp("Most viewers at once; more get 503.", valueName: "n"))
    var maxViewers: Int = 8

    /// `--http` split into host and port.
    var listenAddress: (host: String, port: Int)? { HostPort.parse(http) }

    func validate() throws {
        guard listenAddress != nil else {
            throw ValidationError("--http \"\(http)\": expected HOST:PORT, such as 127.0.0.1:8080, 0.0.0.0:8080 or [::1]:8080")
        }
        guard (1...64).contains(maxViewers) else { throw ValidationError("--max-viewers must be 1...64, not \(maxViewers)") }
    }
}
