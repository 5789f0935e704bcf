import Foundation
import Glibc
import TestSupport
import Testing

extension EndToEnd {
    /// `camrtp serve` in front of real viewers: bearer tokens, HTTPS with a certificate the test
    /// makes with openssl, SIGHUP rotating both while a viewer (aiortc) plays, and the refusals at
    /// start-up. Peers we did not write check the wire: aiortc and curl over TLS.
    @Suite(.serialized) struct ServeAccessEndToEndTests {
        typealias Bed = WHEPServeEndToEndTests.Bed
        static let tokenVariable = "CAMRTP_SERVE_TOKEN"

        /// A temporary folder with a token file and a certificate.
        struct Secrets {
            let directory = TemporaryDirectory()
            let tokenFile: String
            let certificate: TestCertificate

            init(token: String) throws {
                tokenFile = directory.file("tokens")
                try "# viewers\n\(token)\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
                certificate = try TestCertificate(in: directory, name: "live")
            }

            var serveArguments: [String] {
                ["--token-file", tokenFile, "--tls-cert", certificate.certificatePath, "--tls-key", certificate.privateKeyPath]
            }
        }

        /// curl in the bed's namespace: the status (and the TLS failure as curl's exit code).
        static func curl(_ bed: Bed, _ arguments: [String]) throws -> ExternalTool.Result {
            try bed.namespace.start(["/usr/bin/curl", "-s", "-o", "/dev/null", "-w", "%{http_code}"] + arguments).wait(timeout: TestPatience.seconds)
        }

        /// An offer that is not SDP: with a good token it gets past access control and is refused
        /// as SDP (400); with a bad one it is refused at the door (401).
        static func offerStatus(_ bed: Bed, token: String?, ca: String) throws -> ExternalTool.Result {
            var arguments = ["--cacert", ca, "-X", "POST", "-H", "Content-Type: application/sdp", "--data-binary", "v=0"]
            if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
            return try curl(bed, arguments + [bed.base + "whep"])
        }

        static func frameNumber(_ line: String?) -> Int {
            (line.flatMap { WHEPServeEndToEndTests.event($0) }?["n"] as? Int) ?? 0
        }

        @Test(.timeLimit(.minutes(4)))
        func aTokenGuardsTheOfferOverHTTPSAndSIGHUPRotatesBothWithoutDroppingTheViewer() async throws {
            let secrets = try Secrets(token: "first-token")
            let bed = try Bed(secrets.serveArguments)
            defer { bed.stop() }
            #expect(bed.base.hasPrefix("https://"), "\(bed.base)")
            let ca = secrets.certificate.certificatePath

            // No token, a wrong one: refused before anything starts, with the RFC 6750 challenge.
            #expect(try Self.offerStatus(bed, token: nil, ca: ca).stdout == "401")
            #expect(try Self.offerStatus(bed, token: "guess", ca: ca).stdout == "401")
            let challenge = try bed.namespace.start([
                "/usr/bin/curl", "-s", "-D", "-", "-o", "/dev/null", "--cacert", ca, "-X", "POST", "-H", "Authorization: Bearer guess",
                bed.base + "whep",
            ]).wait(timeout: TestPatience.seconds)
            #expect(challenge.stdout.contains("WWW-Authenticate: Bearer realm=\"camrtp\", error=\"invalid_token\""), "\(challenge.stdout)")

            // A viewer with the token plays over HTTPS.
            let viewer = try bed.viewer(["--frames", "100000", "--token", "first-token", "--cafile", ca])
            defer { viewer.interrupt(); _ = viewer.wait(timeout: 10) }
            let playing = viewer.waitForLine(in: .stdout, timeout: TestPatience.seconds) { $0.contains("\"frame\"") && $0.contains("\"n\": 30,") }
            #expect(playing != nil, "\(viewer.output(.stdout)) \(viewer.output(.stderr)) \(bed.server.output(.stderr))")

            // Rotate: a new token and a renewed certificate under the same names, then SIGHUP.
            let oldCA = secrets.directory.file("old-ca.pem")
            try FileManager.default.copyItem(atPath: ca, toPath: oldCA)
            let renewed = try TestCertificate(in: secrets.directory, name: "renewed")
            try "second-token\n".write(toFile: secrets.tokenFile, atomically: true, encoding: .utf8)
            for (from, to) in [(renewed.certificatePath, ca), (renewed.privateKeyPath, secrets.certificate.privateKeyPath)] {
                _ = rename(from, to)
            }
            kill(bed.server.pid, SIGHUP)
            let reloaded = bed.server.waitForLine(containing: "reloaded", in: .stderr)
            #expect(reloaded?.contains("--token-file (1 token)") == true && reloaded?.contains("the certificate") == true, "\(bed.server.output(.stderr))")

            // New connections get the new certificate (the old CA no longer verifies it) and the new token.
            let untrusted = try Self.offerStatus(bed, token: "second-token", ca: oldCA)
            #expect(untrusted.status == 60 && untrusted.stdout == "000", "curl exit \(untrusted.status): \(untrusted.stdout)")
            #expect(try Self.offerStatus(bed, token: "second-token", ca: ca).stdout == "400")
            #expect(try Self.offerStatus(bed, token: "first-token", ca: ca).stdout == "401")

            // The viewer that joined before goes on: 60 more frames after the reload.
            let before = Self.frameNumber(viewer.output(.stdout).split(separator: "\n").last { $0.contains("\"frame\"") }.map(String.init))
            let after = viewer.waitForLine(in: .stdout, timeout: TestPatience.seconds) { Self.frameNumber(String($0)) >= before + 60 }
            #expect(after != nil, "\(viewer.output(.stdout)) \(bed.server.output(.stderr))")
            #expect(!bed.server.output(.stderr).contains("viewer 1 left"))

            // A token file that disappears keeps the tokens in use, with one warning.
            try FileManager.default.removeItem(atPath: secrets.tokenFile)
            kill(bed.server.pid, SIGHUP)
            let warning = bed.server.waitForLine(containing: "keeping the 1 token in use", in: .stderr)
            #expect(warning?.contains("No such file or directory") == true, "\(bed.server.output(.stderr))")
            #expect(try Self.offerStatus(bed, token: "second-token", ca: ca).stdout == "400")

            let result = bed.stop()
            #expect(result.status == 0, "\(result.stderr)")
            // No token ever reaches the log.
            for token in ["first-token", "second-token", "guess"] { #expect(!result.stderr.contains(token), "\(result.stderr)") }
        }

        /// Secure by default: a network address needs a token, or --no-auth said out loud.
        @Test(.timeLimit(.minutes(2)))
        func aNetworkAddressNeedsATokenOrNoAuth() throws {
            let refused = try CamrtpBinary.run(["serve", "--source", "testsrc", "--http", "0.0.0.0:0"], timeout: TestPatience.seconds)
            #expect(refused.status == 2, "\(refused.stderr)")
            let lines = refused.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("--token-file") && lines[0].contains("--no-auth"), "\(refused.stderr)")

            for (arguments, environment, expected) in [
                (["--no-auth"], [:], "serving"),
                ([], [Self.tokenVariable: "from-the-environment"], "viewers need a token"),
            ] as [([String], [String: String], String)] {
                let server = try CamrtpBinary.tool.start(["serve", "--source", "testsrc", "--http", "0.0.0.0:0"] + arguments, environment: environment)
                let line = server.waitForLine(containing: "serving", in: .stderr)
                server.interrupt()
                let result = server.wait(timeout: TestPatience.seconds)
                #expect(line?.contains(expected) == true, "\(result.stderr)")
                #expect(result.status == 0, "\(result.stderr)")
                #expect(!result.stderr.contains("from-the-environment"))
            }
        }

        @Test(.timeLimit(.minutes(2)))
        func badAccessInputIsOneLineAndExit2() throws {
            let secrets = try Secrets(token: "a-token")
            let other = try TestCertificate(in: secrets.directory, name: "other")
            let (certificate, key) = (secrets.certificate.certificatePath, secrets.certificate.privateKeyPath)
            let openKey = secrets.directory.file("open.key")
            try FileManager.default.copyItem(atPath: key, toPath: openKey)
            chmod(openKey, 0o644)
            let badTokens = secrets.directory.file("bad-tokens")
            try "good-one\nnot a token\n".write(toFile: badTokens, atomically: true, encoding: .utf8)
            let serve = ["serve", "--source", "testsrc", "--http", "127.0.0.1:0"]
            let cases: [([String], [String: String], String)] = [
                (["--token-file", secrets.directory.file("missing")], [:], "--token-file"),
                (["--token-file", badTokens], [:], "line 2"),
                (["--token-file", secrets.tokenFile, "--no-auth"], [:], "--no-auth"),
                (["--no-auth"], [Self.tokenVariable: "a-token"], "--no-auth"),
                ([], [Self.tokenVariable: "two words"], Self.tokenVariable),
                (["--tls-cert", certificate], [:], "--tls-key"),
                (["--tls-cert", certificate, "--tls-key", openKey], [:], "chmod 600"),
                (["--tls-cert", certificate, "--tls-key", other.privateKeyPath], [:], "is not the private key of"),
                (["--tls-cert", key, "--tls-key", key], [:], "holds no PEM certificate"),
                (["--allow-origin", "https://example.org/path"], [:], "--allow-origin"),
                (["--metrics-token-file", secrets.directory.file("missing")], [:], "--metrics-token-file"),
            ]
            for (arguments, environment, named) in cases {
                let result = try CamrtpBinary.tool.start(serve + arguments, environment: environment).wait(timeout: TestPatience.seconds)
                #expect(result.status == 2, "\(arguments): \(result.stderr)")
                let lines = result.stderr.split(separator: "\n")
                #expect(lines.count == 1 && lines[0].contains(named), "\(arguments): \(result.stderr)")
                #expect(!result.stderr.contains("good-one") && !result.stderr.contains("two words"), "\(result.stderr)")
            }
        }
    }
}

