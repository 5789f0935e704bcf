import TestSupport

/// A failed run of the openssl command-line tool.
struct OpenSSLToolError: Error, CustomStringConvertible {
    let description: String
}

/// Runs the openssl command-line tool, which checks our work independently; its standard output.
func openssl(_ arguments: [String]) throws -> String {
    let result = try ExternalTool("openssl").run(arguments, timeout: 60)
    guard result.status == 0 else {
        throw OpenSSLToolError(description: "openssl \(arguments.joined(separator: " ")): \(result.stderr)")
    }
    return result.stdout
}

/// A P-256 key and a self-signed certificate made by openssl itself.
func makeOpenSSLCertificate(commonName: String, certificatePath: String, keyPath: String) throws {
    _ = try openssl([
        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=\(commonName)",
        "-days", "2", "-keyout", keyPath, "-out", certificatePath,
    ])
}
