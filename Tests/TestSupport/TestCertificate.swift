import Foundation

/// A self-signed certificate and its key, made by the openssl command-line tool for a test's
/// HTTPS server: ECDSA P-256, valid for two days, for `localhost`, 127.0.0.1 and 127.0.0.2, the key
/// file private to its owner (mode 0600) as a server's must be.
public struct TestCertificate: Sendable {
    public let certificatePath: String
    public let privateKeyPath: String

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Writes `<name>.pem` and `<name>.key` in `directory`.
    public init(in directory: TemporaryDirectory, name: String = "server", commonName: String = "camrtp test") throws {
        certificatePath = directory.file(name + ".pem")
        privateKeyPath = directory.file(name + ".key")
        let result = try ExternalTool("openssl").run([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
            "-subj", "/CN=\(commonName)", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:127.0.0.2",
            "-keyout", privateKeyPath, "-out", certificatePath,
        ], timeout: TestPatience.seconds)
        guard result.status == 0 else { throw Failure(description: "openssl req failed: \(result.stderr)") }
        guard chmod(privateKeyPath, 0o600) == 0 else { throw Failure(description: "chmod \(privateKeyPath): errno \(errno)") }
    }

    /// The certificate's serial number as openssl prints it (`serial=…`), to tell two apart.
    public var serial: String {
        get throws {
            let result = try ExternalTool("openssl").run(["x509", "-in", certificatePath, "-noout", "-serial"], timeout: TestPatience.seconds)
            guard result.status == 0 else { throw Failure(description: "openssl x509 failed: \(result.stderr)") }
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}
