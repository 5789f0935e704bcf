import Foundation
import MediaCore
import TestSupport
import Testing

extension EndToEnd {
    /// Through NAT with a TURN server we did not write (coturn): camrtp on one host, its peer
    /// (aiortc, headless Chromium) on another, and between them a router that drops every UDP
    /// datagram it would forward (`RelayedNetwork`). Only the relay in the middle can carry
    /// media, so a picture that decodes went through it; the selected pair says so too.
    @Suite(.serialized) struct TURNEndToEndTests {
        static let user = "camrtp"
        static let password = "s3cret/p@ss"
        /// The password percent-encoded, as a --turn URL carries it.
        static let encodedPassword = "s3cret%2Fp%40ss"
        static let endpointPort = 8090

        static var unavailableReason: String? {
            RelayedNetwork.unavailableReason ?? WHIPPublishEndToEndTests.unavailableReason
        }

        /// The network, coturn in its middle, and a folder for coturn's files.
        struct Bed {
            let network: RelayedNetwork
            let turn: ExternalTool.Running
            let directory: TemporaryDirectory

            init(dropsDirectUDP: Bool = true) throws {
                if let reason = TURNEndToEndTests.unavailableReason { try Test.cancel("TURN with coturn: \(reason)") }
                network = try RelayedNetwork(dropsDirectUDP: dropsDirectUDP)
                directory = TemporaryDirectory()
                do {
                    turn = try network.startTURNServer(user: TURNEndToEndTests.user, password: TURNEndToEndTests.password, directory: directory.path)
                } catch {
                    network.remove()
                    throw error
                }
            }

            /// aiortc's WHIP endpoint on the right host, with `extra` arguments (--link).
            func endpoint(_ extra: [String] = []) throws -> ExternalTool.Running {
                let endpoint = try network.start(in: network.right, [
                    "/usr/bin/python3", "-u", TestTools.path("whip_endpoint.py"), "--host", RelayedNetwork.rightAddress,
                    "--port", String(TURNEndToEndTests.endpointPort),
                ] + extra)
                try #require(endpoint.waitForLine(containing: "\"listening\"", in: .stdout) != nil, "\(endpoint.output(.stderr))")
                return endpoint
            }

            func publish(_ extra: [String]) throws -> ExternalTool.Running {
                try network.start(in: network.left, [
                    CamrtpBinary.path, "publish", "--source", "testsrc:320x240@30",
                    "--whip", "http://\(RelayedNetwork.rightAddress):\(TURNEndToEndTests.endpointPort)/whip",
                    "--local-address", RelayedNetwork.leftAddress,
                ] + extra)
            }

            func stop(_ programs: ExternalTool.Running...) {
                for program in programs {
                    program.interrupt()
                    _ = program.wait(timeout: 10)
                }
                turn.interrupt()
                _ = turn.wait(timeout: 10)
                network.remove()
            }
        }

        static var turnURL: String { "turn://\(user):\(encodedPassword)@\(RelayedNetwork.middleLeftAddress):\(RelayedNetwork.turnPort)" }

        /// `publish --turn` (TURN over UDP, a percent-encoded password): aiortc decodes the
        /// stream, camrtp's pair is relayed, and the direct path was tried and dropped.
        @Test(.timeLimit(.minutes(3)))
        func aiortcDecodesAPublishThatOnlyTheRelayCarries() async throws {
            let bed = try Bed()
            let endpoint = try bed.endpoint()
            let publisher = try bed.publish(["--turn", Self.turnURL])
            defer { bed.stop(publisher, endpoint) }
            let decoded = endpoint.waitForLine(in: .stdout) { $0.contains("\"frame\"") && $0.contains("\"n\": 30,") }
            #expect(decoded != nil, "\(endpoint.output(.stdout)) \(publisher.output(.stderr)) \(bed.turn.output(.stdout).suffix(2000))")
            publisher.interrupt()
            let result = publisher.wait(timeout: TestPatience.seconds)
            #expect(result.status == 0, "\(result.stderr)")
            let connected = result.stderr.split(separator: "\n").first { $0.contains("connected via") } ?? ""
            #expect(connected.contains("(relay) ⇄"), "\(result.stderr)")
            #expect(!result.stderr.contains(Self.password) && !result.stderr.contains(Self.encodedPassword), "\(result.stderr)")
            #expect(try bed.network.droppedDatagrams() > 0)
            print("through TURN: \(connected)")
        }

        /// No --turn: the endpoint offers its TURN server in a Link field (over TCP this time) on
        /// OPTIONS, and `publish` gathers with it (RFC 9725 section 4.6).
        @Test(.timeLimit(.minutes(3)))
        func publishUsesTheTURNServerTheEndpointOffers() async throws {
            let bed = try Bed()
            let link = "<turn:\(RelayedNetwork.middleRightAddress):\(RelayedNetwork.turnPort)?transport=tcp>; rel=\"ice-server\"; "
                + "username=\"\(Self.user)\"; credential=\"\(Self.password)\"; credential-type=\"password\""
            let endpoint = try bed.endpoint(["--link", link])
            let publisher = try bed.publish([])
            defer { bed.stop(publisher, endpoint) }
            let decoded = endpoint.waitForLine(in: .stdout) { $0.contains("\"frame\"") && $0.contains("\"n\": 30,") }
            #expect(decoded != nil, "\(endpoint.output(.stdout)) \(publisher.output(.stderr))")
            publisher.interrupt()
            let result = publisher.wait(timeout: TestPatience.seconds)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("(relay) ⇄"), "\(result.stderr)")
            #expect(!result.stderr.contains(Self.password), "\(result.stderr)")
            #expect(bed.turn.output(.stdout).contains("TCP"), "coturn saw no TCP client")
        }

        /// The viewer page in Chromium on the other host: the page takes the TURN server from the
        /// endpoint's Link fields, plays through the relay (getStats' pair has a relay candidate),
        /// and restarts ICE with a PATCH, still through the relay.
        @Test(.timeLimit(.minutes(3)))
        func chromiumPlaysTheViewerPageThroughTheRelay() async throws {
            guard ExternalTool.locate("chromium") != nil else { try Test.cancel("needs chromium (apt-get install chromium)") }
            let bed = try Bed()
            let server = try bed.network.start(in: bed.network.left, [
                CamrtpBinary.path, "serve", "--source", "testsrc:320x240@30", "--http", "\(RelayedNetwork.leftAddress):8080",
                "--local-address", RelayedNetwork.leftAddress, "--turn", Self.turnURL, "--no-auth",
            ])
            defer { bed.stop(server) }
            try #require(server.waitForLine(containing: "serving", in: .stderr) != nil, "\(server.output(.stderr))")
            let result = try bed.network.start(in: bed.network.right, [
                "/usr/bin/python3", "-u", TestTools.path("chromium_viewer.py"), "--url", "http://\(RelayedNetwork.leftAddress):8080/",
                "--frames", "60", "--restart-ice",
            ]).wait(timeout: 150)
            #expect(result.status == 0, "\(result.stdout) \(result.stderr) \(server.output(.stderr))")
            let events = WHEPServeEndToEndTests.events(result.stdout)
            let restarted = try #require(events.first { $0["event"] as? String == "restarted" }?["viewer"] as? [String: Any], "\(result.stdout)")
            #expect(restarted["iceServers"] as? Int == 1)
            #expect(restarted["iceRestarts"] as? Int == 1)
            let stats = try #require(restarted["stats"] as? [String: Any])
            let types = [stats["localCandidateType"] as? String, stats["remoteCandidateType"] as? String]
            #expect(types.contains("relay"), "\(stats)")
            #expect((stats["framesDecoded"] as? Int ?? 0) >= 90, "\(stats)")
            #expect(try bed.network.droppedDatagrams() > 0)
            print("Chromium through TURN, after an ICE restart: local \(types[0] ?? "-"), remote \(types[1] ?? "-")")
        }

        /// Figures, not checks (CAMRTP_WEBRTC_MEASURE=1): from starting `camrtp publish` to the
        /// first picture aiortc decodes, 5 times through the relay (direct UDP dropped) and 5 times
        /// direct (the same hosts and TURN server, UDP forwarded), with ICE's share.
        @Test(.enabled(if: ProcessInfo.processInfo.environment["CAMRTP_WEBRTC_MEASURE"] == "1"), arguments: [true, false])
        func timeToFirstFrameThroughTURNAgainstDirect(_ relayed: Bool) async throws {
            var firstFrame: [Double] = []
            var ice: [Double] = []
            for _ in 0..<5 {
                let bed = try Bed(dropsDirectUDP: relayed)
                let endpoint = try bed.endpoint()
                let start = Double(MonotonicClock.nowNs()) / 1e9
                let publisher = try bed.publish(["--turn", Self.turnURL, "--size", "640x480"])
                let first = endpoint.waitForLine(containing: "\"frame\"", in: .stdout)
                publisher.interrupt()
                let result = publisher.wait(timeout: TestPatience.seconds)
                bed.stop(endpoint)
                let time = try #require(WHEPServeEndToEndTests.event(first)?["t"] as? Double, "\(result.stderr)")
                #expect(result.stderr.contains("(relay) ⇄") == relayed, "\(result.stderr)")
                firstFrame.append((time - start) * 1000)
                ice.append(WHIPPublishEndToEndTests.figure(after: "ICE ", in: result.stderr))
            }
            let path = relayed ? "through TURN (relay pair)" : "direct (host pair)"
            print("publish 640x480 to aiortc \(path): first decoded frame median \(DecimalText.fixed(firstFrame.median, decimals: 0)) ms "
                + "(runs: \(firstFrame.map { DecimalText.fixed($0, decimals: 0) }.joined(separator: ", "))), "
                + "ICE median \(DecimalText.fixed(ice.median, decimals: 0)) ms")
        }

        /// A TURN server that refuses the password, and one that never answers: one line names
        /// --turn (never the password), gathering goes on without it, and with the direct path
        /// dropped the session cannot connect: with --reconnect-limit 0, camrtp ends, exit 1.
        @Test(.timeLimit(.minutes(3)), arguments: [
            "turn://\(TURNEndToEndTests.user):wrongpassword@\(RelayedNetwork.middleLeftAddress):\(RelayedNetwork.turnPort)",
            "turn://\(TURNEndToEndTests.user):wrongpassword@\(RelayedNetwork.middleLeftAddress):3999",
        ])
        func aTURNServerThatRefusesOrIsSilentIsNamedNotAHang(_ url: String) async throws {
            let bed = try Bed()
            let endpoint = try bed.endpoint()
            let publisher = try bed.publish(["--turn", url, "--connect-timeout", "6", "--reconnect-limit", "0"])
            defer { bed.stop(publisher, endpoint) }
            let result = publisher.wait(timeout: TestPatience.seconds)
            #expect(result.status == 1, "\(result.stderr)")
            let named = result.stderr.split(separator: "\n").first { $0.contains("gave no relay candidate") }
            #expect(named?.contains("--turn turn:\(RelayedNetwork.middleLeftAddress):") == true, "\(result.stderr)")
            #expect(named?.contains("check --turn") == true)
            #expect(!result.stderr.contains("wrongpassword"), "\(result.stderr)")
            #expect(result.stderr.contains("--reconnect-limit 0"), "\(result.stderr)")
        }
    }
}
