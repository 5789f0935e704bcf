import Foundation
import HTTPAccess
import NIOSSL
import TestSupport
import Testing

/// Certificates and keys made by the openssl tool, loaded as `serve --tls-cert/--tls-key` does.
@Suite struct TLSCredentialsTests {
    @Test func aMatchingPairLoads() throws {
        let directory = TemporaryDirectory()
        let certificate = try TestCertificate(in: directory)
        let credentials = try TLSCredentials.load(certificatePath: certificate.certificatePath, privateKeyPath: certificate.privateKeyPath)
        #expect(credentials.certificateChain.count == 1)
        // Two days from now, give or take the test's run.
        #expect(abs(credentials.notValidAfter - (Int(Date().timeIntervalSince1970) + 2 * 86_400)) < 3_600)
    }

    @Test func aKeyOthersMayReadIsRefusedAsSshRefusesIt() throws {
        let directory = TemporaryDirectory()
        let certificate = try TestCertificate(in: directory)
        for mode in [0o644, 0o640, 0o604, 0o660] as [mode_t] {
            chmod(certificate.privateKeyPath, mode)
            #expect(throws: TLSCredentialsError.keyNotPrivate(path: certificate.privateKeyPath, mode: Int(mode))) {
                try TLSCredentials.load(certificatePath: certificate.certificatePath, privateKeyPath: certificate.privateKeyPath)
            }
        }
        chmod(certificate.privateKeyPath, 0o400)
        _ = try TLSCredentials.load(certificatePath: certificate.certificatePath, privateKeyPath: certificate.privateKeyPath)
        let message = TLSCredentialsError.keyNotPrivate(path: "privkey.pem", mode: 0o644).description
        #expect(message == "privkey.pem may be read by others (mode 644): a private key must be private; chmod 600 privkey.pem")
    }

    @Test func filesThatDoNotParseOrDoNotMatchAreNamed() throws {
        let directory = TemporaryDirectory()
        let first = try TestCertificate(in: directory, name: "first")
        let second = try TestCertificate(in: directory, name: "second")
        #expect(throws: TLSCredentialsError.mismatch(certificatePath: first.certificatePath, privateKeyPath: second.privateKeyPath)) {
            try TLSCredentials.load(certificatePath: first.certificatePath, privateKeyPath: second.privateKeyPath)
        }
        let garbage = directory.file("garbage.pem")
        try "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n".write(toFile: garbage, atomically: true, encoding: .utf8)
        chmod(garbage, 0o600)
        #expect(throws: TLSCredentialsError.noCertificate(path: garbage)) {
            try TLSCredentials.load(certificatePath: garbage, privateKeyPath: first.privateKeyPath)
        }
        #expect(throws: TLSCredentialsError.noPrivateKey(path: garbage)) {
            try TLSCredentials.load(certificatePath: first.certificatePath, privateKeyPath: garbage)
        }
        // The certificate where the key should be, and the key where the certificate should be.
        let publicCopy = directory.file("cert-as-key.pem")
        try FileManager.default.copyItem(atPath: first.certificatePath, toPath: publicCopy)
        chmod(publicCopy, 0o600)
        #expect(throws: TLSCredentialsError.noPrivateKey(path: publicCopy)) {
            try TLSCredentials.load(certificatePath: first.certificatePath, privateKeyPath: publicCopy)
        }
        #expect(throws: TLSCredentialsError.noCertificate(path: first.privateKeyPath)) {
            try TLSCredentials.load(certificatePath: first.privateKeyPath, privateKeyPath: first.privateKeyPath)
        }
        #expect(throws: TLSCredentialsError.unreadable(path: directory.file("missing.pem"), reason: "cannot be read: No such file or directory")) {
            try TLSCredentials.load(certificatePath: first.certificatePath, privateKeyPath: directory.file("missing.pem"))
        }
    }

    @Test func aReloadTakesRenewedFilesAndKeepsTheOldOnFailure() throws {
        let directory = TemporaryDirectory()
        let current = try TestCertificate(in: directory, name: "live")
        let store = try TLSCredentialStore(certificatePath: current.certificatePath, privateKeyPath: current.privateKeyPath)
        let before = try store.credentials.certificateChain[0].toDERBytes()

        // A renewal that went wrong: the new certificate without its key.
        let renewed = try TestCertificate(in: directory, name: "renewed")
        try FileManager.default.removeItem(atPath: current.certificatePath)
        try FileManager.default.copyItem(atPath: renewed.certificatePath, toPath: current.certificatePath)
        #expect(throws: TLSCredentialsError.mismatch(certificatePath: current.certificatePath, privateKeyPath: current.privateKeyPath)) {
            try store.reload()
        }
        #expect(try store.credentials.certificateChain[0].toDERBytes() == before)

        // Then the key arrives too.
        try FileManager.default.removeItem(atPath: current.privateKeyPath)
        try FileManager.default.copyItem(atPath: renewed.privateKeyPath, toPath: current.privateKeyPath)
        try store.reload()
        #expect(try store.credentials.certificateChain[0].toDERBytes() != before)
    }
}
