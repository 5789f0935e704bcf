import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// `publish` to an https:// WHIP endpoint (aiohttp with a certificate the test makes): the
    /// certificate is verified, a private CA is trusted only when --ca-file says so, and the token
    /// can come from a file.
    @Suite(.serialized) struct PublishTLSEndToEndTests {
        typealias Bed = WHIPPublishEndToEndTests.Bed

        static func arguments(_ extra: [String]) -> [String] {
            [CamrtpBinary.path, "publish", "--source", "testsrc:320x240@30", "--whip", "https://127.0.0.1:\(WHIPPublishEndToEndTests.port)/whip",
             "--local-address", NetworkNamespace.ipv4Address] + extra
        }

        @Test(.timeLimit(.minutes(3)))
        func aPrivateCAIsTrustedOnlyWithCAFileAndTheTokenComesFromAFile() async throws {
            let directory = TemporaryDirectory()
            let certificate = try TestCertificate(in: directory)
            let bearer = directory.file("bearer")
            try "# the ingest's token\ns3cret\n".write(toFile: bearer, atomically: true, encoding: .utf8)
            let bed = try Bed(token: "s3cret", ["--tls-cert", certificate.certificatePath, "--tls-key", certificate.privateKeyPath])
            defer { bed.stop() }

            // The system's trust store does not know the test's certificate: refused, in one line.
            let untrusted = try bed.namespace.start(Self.arguments(["--bearer-file", bearer])).wait(timeout: TestPatience.seconds)
            #expect(untrusted.status == 1, "\(untrusted.stderr)")
            let lines = untrusted.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("TLS handshake") && lines[0].contains("--ca-file"), "\(untrusted.stderr)")
            #expect(!bed.endpoint.output(.stdout).contains("\"offer\""))

            let publisher = try bed.namespace.start(Self.arguments(["--bearer-file", bearer, "--ca-file", certificate.certificatePath, "--frames", "60"]))
            let result = publisher.wait(timeout: TestPatience.seconds)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("session ended (DELETE)"), "\(result.stderr)")
            #expect(bed.endpoint.output(.stdout).contains("\"auth\": \"Bearer s3cret\""))
            let decoded = bed.endpoint.waitForLine(in: .stdout) { $0.contains("\"frame\"") && $0.contains("\"n\": 30,") }
            #expect(decoded != nil, "\(bed.endpoint.output(.stdout)) \(result.stderr)")
            #expect(!result.stderr.contains("s3cret"))
        }

        @Test(.timeLimit(.minutes(1)))
        func badTrustOrTokenFilesAreOneLineAndExit2() throws {
            let directory = TemporaryDirectory()
            let garbage = directory.file("garbage.pem")
            try "not a certificate\n".write(toFile: garbage, atomically: true, encoding: .utf8)
            let empty = directory.file("empty")
            try "# nothing\n".write(toFile: empty, atomically: true, encoding: .utf8)
            let whip = ["publish", "--source", "testsrc", "--whip", "https://127.0.0.1:9/whip"]
            for (arguments, named) in [
                (["--ca-file", garbage], "--ca-file"),
                (["--ca-file", directory.file("missing.pem")], "--ca-file"),
                (["--bearer-file", empty], "--bearer-file"),
                (["--bearer-file", directory.file("missing")], "--bearer-file"),
                (["--bearer", "x", "--bearer-file", empty], "--bearer-file"),
            ] {
                let result = try CamrtpBinary.run(whip + arguments, timeout: TestPatience.seconds)
                #expect(result.status == 2, "\(arguments): \(result.stderr)")
                let lines = result.stderr.split(separator: "\n")
                #expect(lines.count == 1 && lines[0].contains(named), "\(arguments): \(result.stderr)")
            }
        }
    }
}
