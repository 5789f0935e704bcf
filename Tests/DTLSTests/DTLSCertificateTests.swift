import DTLS
import Foundation
import TestSupport
import Testing

/// `sha256 Fingerprint=AB:CD:…` as `openssl x509 -fingerprint -sha256` prints it, in SDP form.
private func fingerprintFromOpenSSL(certificatePath: String) throws -> String {
    let line = try openssl(["x509", "-in", certificatePath, "-noout", "-fingerprint", "-sha256"])
    let hex = line.split(separator: "=").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
    return "sha-256 " + hex
}

private func makePair(in directory: TemporaryDirectory, name: String) throws -> (certificate: String, key: String) {
    let certificate = directory.file("\(name).crt")
    let key = directory.file("\(name).key")
    try makeOpenSSLCertificate(commonName: name, certificatePath: certificate, keyPath: key)
    return (certificate, key)
}

@Suite("DTLS certificates")
struct DTLSCertificateTests {
    @Test func generatedFingerprintHasTheSDPForm() throws {
        let value = try DTLSCertificate.generate().fingerprint.sdpValue
        let pattern = /sha-256 ([0-9A-F]{2}:){31}[0-9A-F]{2}/
        #expect(value.wholeMatch(of: pattern) != nil, "\(value)")
    }

    @Test func eachGeneratedCertificateIsNew() throws {
        let first = try DTLSCertificate.generate()
        let second = try DTLSCertificate.generate()
        #expect(first.fingerprint != second.fingerprint)
    }

    @Test func opensslReadsWhatWeGenerate() throws {
        let directory = TemporaryDirectory()
        let certificate = try DTLSCertificate.generate()
        let path = directory.file("ours.crt")
        try certificate.certificatePEM().write(toFile: path, atomically: true, encoding: .utf8)

        #expect(try fingerprintFromOpenSSL(certificatePath: path) == certificate.fingerprint.sdpValue)
        let text = try openssl(["x509", "-in", path, "-noout", "-text"])
        #expect(text.contains("Subject: CN = camrtp"))
        #expect(text.contains("Issuer: CN = camrtp"))
        #expect(text.contains("Version: 3 (0x2)"))
        #expect(text.contains("ASN1 OID: prime256v1"))
        #expect(text.contains("Signature Algorithm: ecdsa-with-SHA256"))
        // Valid for 29 more days, not for 31: about 30 days.
        #expect(try ExternalTool("openssl").run(["x509", "-in", path, "-noout", "-checkend", "\(29 * 86_400)"]).status == 0)
        #expect(try ExternalTool("openssl").run(["x509", "-in", path, "-noout", "-checkend", "\(31 * 86_400)"]).status == 1)
        #expect(try openssl(["verify", "-CAfile", path, path]).contains("OK"))
    }

    @Test func serialsAreRandom() throws {
        let directory = TemporaryDirectory()
        var serials: Set<String> = []
        for index in 0..<3 {
            let path = directory.file("\(index).crt")
            try DTLSCertificate.generate().certificatePEM().write(toFile: path, atomically: true, encoding: .utf8)
            serials.insert(try openssl(["x509", "-in", path, "-noout", "-serial"]))
        }
        #expect(serials.count == 3)
    }

    @Test func refusesAnAbsurdLifetime() {
        #expect(throws: DTLSError.self) { try DTLSCertificate.generate(lifetimeDays: 0) }
    }

    @Test func loadsPEMFilesWithTheirFingerprint() throws {
        let directory = TemporaryDirectory()
        let pair = try makePair(in: directory, name: "peer")
        let certificate = try DTLSCertificate.load(certificatePath: pair.certificate, privateKeyPath: pair.key)
        #expect(certificate.fingerprint.sdpValue == (try fingerprintFromOpenSSL(certificatePath: pair.certificate)))

        // One file holding both blocks, given twice.
        let combined = directory.file("combined.pem")
        let both = try String(contentsOfFile: pair.key, encoding: .utf8)
            + String(contentsOfFile: pair.certificate, encoding: .utf8)
        try both.write(toFile: combined, atomically: true, encoding: .utf8)
        let fromOneFile = try DTLSCertificate.load(certificatePath: combined, privateKeyPath: combined)
        #expect(fromOneFile.fingerprint == certificate.fingerprint)
    }

    @Test func namesAMissingFile() throws {
        let directory = TemporaryDirectory()
        let pair = try makePair(in: directory, name: "peer")
        let missing = directory.file("missing.pem")
        let error = try #require(throws: DTLSError.self) {
            try DTLSCertificate.load(certificatePath: missing, privateKeyPath: pair.key)
        }
        #expect(error.reason == .unreadableFile(path: missing, errno: ENOENT))
        #expect(error.description.contains("cannot read \(missing): No such file or directory (errno 2)"))

        let directoryError = try #require(throws: DTLSError.self) {
            try DTLSCertificate.load(certificatePath: pair.certificate, privateKeyPath: directory.path)
        }
        #expect(directoryError.reason == .unreadableFile(path: directory.path, errno: EISDIR))
    }

    @Test func saysWhatAWrongFileHolds() throws {
        let directory = TemporaryDirectory()
        let pair = try makePair(in: directory, name: "peer")

        let swapped = try #require(throws: DTLSError.self) {
            try DTLSCertificate.load(certificatePath: pair.key, privateKeyPath: pair.certificate)
        }
        #expect(swapped.reason == .missingPEMBlock(path: pair.key, expected: "certificate", found: ["PRIVATE KEY"]))
        #expect(swapped.description.contains("holds no PEM certificate, only \"PRIVATE KEY\""))

        let keyIsCertificate = try #require(throws: DTLSError.self) {
            try DTLSCertificate.load(certificatePath: pair.certificate, privateKeyPath: pair.certificate)
        }
        let expected = DTLSError.Reason.missingPEMBlock(path: pair.certificate, expected: "private key", found: ["CERTIFICATE"])
        #expect(keyIsCertificate.reason == expected)

        let text = directory.file("notes.txt")
        try "not a certificate\n".write(toFile: text, atomically: true, encoding: .utf8)
        let notPEM = try #require(throws: DTLSError.self) {
            try DTLSCertificate.load(certificatePath: text, privateKeyPath: pair.key)
        }
        #expect(notPEM.description.contains("holds no PEM certificate, no PEM block at all"))
    }

    @Test func refusesAKeyOfAnotherCertificate() throws {
        let directory = TemporaryDirectory()
        let first = try makePair(in: directory, name: "first")
        let second = try makePair(in: directory, name: "second")
        let error = try #require(throws: DTLSError.self) {
            try DTLSCertificate.load(certificatePath: first.certificate, privateKeyPath: second.key)
        }
        #expect(error.reason == .keyDoesNotMatchCertificate(certificatePath: first.certificate, keyPath: second.key))
        #expect(error.description.contains("does not belong to the certificate"))
    }

    @Test func refusesAnEncryptedKeyWithoutPrompting() throws {
        let directory = TemporaryDirectory()
        let pair = try makePair(in: directory, name: "peer")
        let encrypted = directory.file("encrypted.key")
        _ = try openssl(["pkey", "-in", pair.key, "-aes128", "-passout", "pass:secret", "-out", encrypted])
        let error = try #require(throws: DTLSError.self) {
            try DTLSCertificate.load(certificatePath: pair.certificate, privateKeyPath: encrypted)
        }
        #expect(error.reason == .encryptedPrivateKey(path: encrypted))
    }
}
