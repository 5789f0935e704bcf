import ArgumentParser
import CamrtpCLI
import DTLS
import Glibc
import ICE
import ICEServers
import RTP
import RTPSession
import WebRTC

/// How a WebRTC connection is set up, for `publish` and for every viewer of `serve`: STUN,
/// TURN, certificate, local addresses, connect timeout, packet size, retransmission, transport-cc.
struct WebRTCOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A STUN server for a server-reflexive candidate, HOST:PORT (port 3478 if left out).", valueName: "host:port"))
    var stun: String?

    @Option(name: .customLong("turn"), help: ArgumentHelp(
        "A TURN server for relayed candidates, turn://USER:PASS@HOST:PORT[?transport=udp|tcp] (percent-encode @ : % in USER and PASS); repeatable.",
        valueName: "url"))
    var turnURLs: [String] = []

    @Option(help: ArgumentHelp("DTLS certificate (PEM); with --key. A fresh ECDSA P-256 one by default.", valueName: "file"))
    var cert: String?

    @Option(help: ArgumentHelp("Private key (PEM, unencrypted) of --cert.", valueName: "file"))
    var key: String?

    @Option(name: .customLong("local-address"), help: ArgumentHelp(
        "Offer ICE candidates on this IPv4 or IPv6 address only; repeat for more. Every usable interface by default.",
        valueName: "address"))
    var localAddresses: [String] = []

    @Option(help: ArgumentHelp("Seconds from the peer's answer or offer until ICE and DTLS are done.", valueName: "seconds"))
    var connectTimeout: Double = 20

    @Option(help: ArgumentHelp("Largest SRTP packet in bytes, headers and tag included.", valueName: "bytes"))
    var mtu: Int = 1200

    @Option(help: ArgumentHelp(
        "Repair lost packets the peer NACKs: rtx (RFC 4588, when the peer accepts it, else resend), resend or off.",
        valueName: "mode"))
    var retransmit: Retransmission = .rtx

    @Option(help: ArgumentHelp(
        "Forward error correction, RED + ULPFEC (RFC 2198, RFC 5109), when the peer takes it: auto (as loss and RTT call for it), on (always) or off.",
        discussion: "On a long path a repair asked for comes too late for the receiver's buffer; FEC rebuilds a lost packet without asking, for 10-30 % more bytes while the path loses packets, nothing while it does not.",
        valueName: "mode"))
    var fec: FECMode = .auto

    @Flag(inversion: .prefixedNo, help: "Offer or accept transport-cc feedback and the transport-wide sequence number extension.")
    var transportCc = true

    @OptionGroup var latency: LatencyOptions

    @Option(help: ArgumentHelp(
        "Write each session's congestion-control updates (as send's --trace-bwe) to PREFIX-1.csv, PREFIX-2.csv, …: one file per viewer or publish attempt, numbered as they start.",
        valueName: "prefix"))
    var traceBwe: String?

    /// The trace files of `--trace-bwe`, the first one opened now; nil without the option.
    func traceFiles() throws -> BWETraceFiles? {
        try traceBwe.map(BWETraceFiles.init(prefix:))
    }

    func validate() throws {
        if let stun {
            do throws(ICEError) {
                _ = try STUNServerAddress(parsing: stun)
            } catch {
                throw ValidationError("--stun \"\(stun)\": expected HOST:PORT, such as stun.example.org:3478")
            }
        }
        for (index, url) in turnURLs.enumerated() {
            // The URL holds a password: it is named by position, never repeated.
            let name = turnURLs.count > 1 ? "--turn #\(index + 1)" : "--turn"
            let server: ICEServer
            do throws(ICEServerError) {
                server = try ICEServer(turnURL: url)
            } catch {
                throw ValidationError("\(name): \(error); expected turn://USER:PASS@HOST:PORT[?transport=udp|tcp]")
            }
            guard server.uri.scheme == .turn else {
                throw ValidationError(
                    "\(name): turns:// (TURN over TLS) is not supported yet, as libnice would send it in clear; "
                        + "use turn://USER:PASS@HOST:PORT?transport=tcp where only TCP gets out")
            }
        }
        if (cert == nil) != (key == nil) { throw ValidationError("--cert and --key go together: give both or neither") }
        for address in localAddresses where !Self.isAddressLiteral(address) {
            throw ValidationError("--local-address \"\(address)\" is not an IPv4 or IPv6 address, such as 192.0.2.10 or 2001:db8::10")
        }
        guard connectTimeout > 0 && connectTimeout <= 600 else {
            throw ValidationError("--connect-timeout must be more than 0 and at most 600 seconds, not \(connectTimeout)")
        }
        guard (256...1500).contains(mtu) else { throw ValidationError("--mtu must be 256...1500 for WebRTC, not \(mtu)") }
    }

    /// The sender's configuration; one certificate from --cert/--key, or a fresh one per connection;
    /// `playoutDelay` unless `--playout-delay` says otherwise. A connection that loses its path
    /// waits `disconnectedGraceSeconds` for an ICE restart.
    func senderConfiguration(encoder: EncoderOptions, playoutDelay: PlayoutDelay? = nil) throws -> WebRTCSenderConfiguration {
        let transport = WebRTCTransportOptions(
            stunServer: try stunServer, turnServers: try turnServers, localAddresses: localAddresses, certificate: try loadCertificate(),
            connectTimeoutNs: Int64(connectTimeout * 1e9), disconnectedGraceNs: Self.disconnectedGraceNs)
        var tuning = encoder.tuning(mtu: mtu, retransmission: retransmit, fec: fec)
        tuning.playoutDelay = try latency.requestedPlayoutDelay(default: playoutDelay)
        return WebRTCSenderConfiguration(
            transport: transport, tuning: tuning, transportCC: transportCc, absoluteCaptureTime: latency.absCaptureTime)
    }

    /// As long as libnice's consent timeout: a peer that restarts ICE after noticing the loss
    /// finds its session.
    static let disconnectedGraceNs: Int64 = 10_000_000_000

    var stunServer: STUNServerAddress? {
        get throws { try stun.map { text throws(ICEError) in try STUNServerAddress(parsing: text) } }
    }

    var turnServers: [ICEServer] {
        get throws { try turnURLs.map { text throws(ICEServerError) in try ICEServer(turnURL: text) } }
    }

    /// `--stun` and `--turn` as the ICE servers a WHEP endpoint offers its viewers.
    var iceServers: [ICEServer] {
        get throws {
            let stunServers = try stunServer.map { server in [try ICEServer(uri: ICEServerURI(scheme: .stun, host: server.host, port: server.port))] }
            return (stunServers ?? []) + (try turnServers)
        }
    }

    private func loadCertificate() throws -> DTLSCertificate? {
        guard let cert, let key else { return nil }
        do throws(DTLSError) {
            return try DTLSCertificate.load(certificatePath: cert, privateKeyPath: key)
        } catch {
            throw CLIError.usage("--cert/--key: \(error)")
        }
    }

    private static func isAddressLiteral(_ text: String) -> Bool {
        var storage = in6_addr()
        return inet_pton(AF_INET, text, &storage) == 1 || inet_pton(AF_INET6, text, &storage) == 1
    }
}
