import ArgumentParser
import DTLS
import Glibc
import ICE
import WebRTC

/// How `serve` listens (`--http`, `--max-viewers`) and how each viewer's WebRTC connection is
/// set up (STUN, certificate, local addresses, connect timeout, retransmission, extensions).
struct ServeOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Address to serve the viewer page and the WHEP endpoint on, HOST:PORT ([::1]:8080 for IPv6; port 0 picks a free one).",
        valueName: "host:port"))
    var http: String = "127.0.0.1:8080"

    @Option(help: ArgumentHelp("Most viewers at once; more get 503.", valueName: "n"))
    var maxViewers: Int = 8

    @Option(help: ArgumentHelp("A STUN server for a server-reflexive candidate, HOST:PORT (port 3478 if left out).", valueName: "host:port"))
    var stun: String?

    @Option(help: ArgumentHelp("DTLS certificate (PEM); with --key. A fresh ECDSA P-256 one per viewer by default.", valueName: "file"))
    var cert: String?

    @Option(help: ArgumentHelp("Private key (PEM, unencrypted) of --cert.", valueName: "file"))
    var key: String?

    @Option(name: .customLong("local-address"), help: ArgumentHelp(
        "Offer ICE candidates on this IPv4 or IPv6 address only; repeat for more. Every usable interface by default.",
        valueName: "address"))
    var localAddresses: [String] = []

    @Option(help: ArgumentHelp("Seconds from a viewer's offer until its ICE and DTLS are done.", valueName: "seconds"))
    var connectTimeout: Double = 20

    @Option(help: ArgumentHelp("Largest SRTP packet in bytes, headers and tag included.", valueName: "bytes"))
    var mtu: Int = 1200

    @Option(help: ArgumentHelp(
        "Repair lost packets a viewer NACKs: rtx (RFC 4588, when the viewer offers it, else resend), resend or off.",
        valueName: "mode"))
    var retransmit: RetransmitMode = .rtx

    /// `--http` split into host and port.
    var listenAddress: (host: String, port: Int)? {
        guard let colon = http.lastIndex(of: ":"), let port = Int(http[http.index(after: colon)...]), (0...65535).contains(port) else {
            return nil
        }
        var host = String(http[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains(where: { $0 == "[" || $0 == "]" || $0 == " " }) else { return nil }
        return (host, port)
    }

    func validate() throws {
        guard listenAddress != nil else {
            throw ValidationError("--http \"\(http)\": expected HOST:PORT, such as 127.0.0.1:8080, 0.0.0.0:8080 or [::1]:8080")
        }
        guard (1...64).contains(maxViewers) else { throw ValidationError("--max-viewers must be 1...64, not \(maxViewers)") }
        if let stun {
            do throws(ICEError) {
                _ = try STUNServerAddress(parsing: stun)
            } catch {
                throw ValidationError("--stun \"\(stun)\": expected HOST:PORT, such as stun.example.org:3478")
            }
        }
        if (cert == nil) != (key == nil) { throw ValidationError("--cert and --key go together: give both or neither") }
        for address in localAddresses {
            var storage = in6_addr()
            guard inet_pton(AF_INET, address, &storage) == 1 || inet_pton(AF_INET6, address, &storage) == 1 else {
                throw ValidationError("--local-address \"\(address)\" is not an IPv4 or IPv6 address, such as 192.0.2.10 or 2001:db8::10")
            }
        }
        guard connectTimeout > 0 && connectTimeout <= 600 else {
            throw ValidationError("--connect-timeout must be more than 0 and at most 600 seconds, not \(connectTimeout)")
        }
        guard (256...1500).contains(mtu) else { throw ValidationError("--mtu must be 256...1500 for WebRTC, not \(mtu)") }
    }

    /// What every viewer's sender is built from; one certificate for all when --cert is given.
    func senderConfiguration(encoder: EncoderOptions) throws -> WebRTCSenderConfiguration {
        var certificate: DTLSCertificate?
        if let cert, let key {
            do throws(DTLSError) {
                certificate = try DTLSCertificate.load(certificatePath: cert, privateKeyPath: key)
            } catch {
                throw CLIError.usage("--cert/--key: \(error)")
            }
        }
        let transport = WebRTCTransportOptions(
            stunServer: try stun.map { text throws(ICEError) in try STUNServerAddress(parsing: text) },
            localAddresses: localAddresses, certificate: certificate, connectTimeoutNs: Int64(connectTimeout * 1e9))
        let retransmission: WebRTCSenderConfiguration.Retransmission = switch retransmit {
        case .off: .off
        case .resend: .resend
        case .rtx: .rtx
        }
        return WebRTCSenderConfiguration(
            transport: transport, mtu: mtu, retransmission: retransmission,
            congestionControl: encoder.congestionControl, pacing: encoder.pacer)
    }
}
