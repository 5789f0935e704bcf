import ArgumentParser
import CamrtpCLI
import DTLS
import Glibc
import ICE
import RTPSession
import WebRTC

/// How a WebRTC connection is set up, for `publish` and for every viewer of `serve`: STUN,
/// certificate, local addresses, connect timeout, packet size, retransmission, transport-cc.
struct WebRTCOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A STUN server for a server-reflexive candidate, HOST:PORT (port 3478 if left out).", valueName: "host:port"))
    var stun: String?

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

    @Flag(inversion: .prefixedNo, help: "Offer or accept transport-cc feedback and the transport-wide sequence number extension.")
    var transportCc = true

    func validate() throws {
        if let stun {
            do throws(ICEError) {
                _ = try STUNServerAddress(parsing: stun)
            } catch {
                throw ValidationError("--stun \"\(stun)\": expected HOST:PORT, such as stun.example.org:3478")
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

    /// The sender's configuration; one certificate from --cert/--key, or a fresh one per connection.
    func senderConfiguration(encoder: EncoderOptions) throws -> WebRTCSenderConfiguration {
        let transport = WebRTCTransportOptions(
            stunServer: try stun.map { text throws(ICEError) in try STUNServerAddress(parsing: text) },
            localAddresses: localAddresses, certificate: try loadCertificate(), connectTimeoutNs: Int64(connectTimeout * 1e9))
        return WebRTCSenderConfiguration(
            transport: transport, tuning: encoder.tuning(mtu: mtu, retransmission: retransmit), transportCC: transportCc)
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
