import ICE
import Testing

extension ICEAgentSuites {
    @Suite("ICE: gathering and configuration")
    struct ICEGatheringTests {
        /// With `--stun`, a server-reflexive candidate carries the address the server saw, with the
        /// host candidate it came from as related address.
        @Test(.timeLimit(.minutes(1)), arguments: ["127.0.0.1", "localhost"])
        func serverReflexiveCandidateFromSTUNServer(_ serverHost: String) async throws {
            let server = try LoopbackResponder { request, sourcePort in
                classicBindingResponse(to: request, mappedAddress: [127, 0, 0, 3], mappedPort: sourcePort)
            }
            defer { server.stop() }
            let agent = try ICEAgent(
                configuration: ICEConfiguration(
                    role: .controlling, stunServer: STUNServerAddress(host: serverHost, port: server.port),
                    localAddresses: ["127.0.0.1"]),
                receiveHandler: { _ in })
            defer { agent.close() }

            let candidates = try await agent.gatherCandidates()
            let host = try #require(candidates.first { $0.type == .host })
            let reflexive = try #require(candidates.first { $0.type == .serverReflexive })
            #expect(reflexive.address == "127.0.0.3")
            #expect(reflexive.port == host.port)
            #expect(reflexive.relatedAddress == "127.0.0.1")
            #expect(reflexive.relatedPort == host.port)
            #expect(reflexive.priority < host.priority)
            #expect(reflexive.foundation != host.foundation)
            #expect(!server.datagrams.isEmpty)
        }

        @Test func unresolvableSTUNServerFailsGathering() async throws {
            let agent = try ICEAgent(
                configuration: ICEConfiguration(
                    role: .controlling, stunServer: STUNServerAddress(host: "stun.invalid", port: 3478),
                    localAddresses: ["127.0.0.1"]),
                receiveHandler: { _ in })
            defer { agent.close() }
            await #expect(throws: ICEError.self) { try await agent.gatherCandidates() }
        }

        @Test func gatheringTwiceIsRefused() async throws {
            let agent = try ICEAgent(
                configuration: ICEConfiguration(role: .controlled, localAddresses: ["127.0.0.1"]), receiveHandler: { _ in })
            defer { agent.close() }
            _ = try await agent.gatherCandidates()
            await #expect(throws: ICEError.self) { try await agent.gatherCandidates() }
        }

        @Test func invalidConfigurationsAreRefused() {
            #expect(throws: ICEError.self) {
                try ICEAgent(configuration: ICEConfiguration(role: .controlling, mode: .lite), receiveHandler: { _ in })
            }
            #expect(throws: ICEError.self) {
                try ICEAgent(configuration: ICEConfiguration(role: .controlled, localAddresses: ["not-an-address"]), receiveHandler: { _ in })
            }
        }

        @Test func callsAfterCloseThrowAndSendFails() async throws {
            let agent = try ICEAgent(
                configuration: ICEConfiguration(role: .controlled, localAddresses: ["127.0.0.1"]), receiveHandler: { _ in })
            agent.close()
            agent.close()
            #expect(throws: ICEError.self) { try agent.setRemoteCredentials(ICECredentials(usernameFragment: "abcd", password: "0123456789abcdefghijkl")) }
            #expect(throws: ICEError.self) { try agent.endOfRemoteCandidates() }
            await #expect(throws: ICEError.self) { try await agent.gatherCandidates() }
            #expect(!agent.send([1]))
        }

        /// An agent released from its own handler (the last reference held there) still tears down.
        @Test(.timeLimit(.minutes(1)))
        func closingFromItsOwnHandlerEndsTheAgent() async throws {
            let threadsBefore = ProcessResources.threadCount(named: "camrtp.ice")
            let holder = AgentHolder()
            let agent = try ICEAgent(
                configuration: ICEConfiguration(role: .controlled, localAddresses: ["127.0.0.1"]),
                eventHandler: { event in
                    if event == .gatheringDone { holder.take()?.close() }
                },
                receiveHandler: { _ in })
            holder.set(agent)
            let events = agent.events
            _ = try await agent.gatherCandidates()
            for await _ in events {}
            #expect(agent.localCandidates.count == 1)
            _ = consume agent
            await ProcessResources.waitForThreads(named: "camrtp.ice", toNumber: threadsBefore)
        }

        @Test func stunServerAddressParsing() throws {
            #expect(try STUNServerAddress(parsing: "stun.example.org:19302") == STUNServerAddress(host: "stun.example.org", port: 19302))
            #expect(try STUNServerAddress(parsing: "192.0.2.1") == STUNServerAddress(host: "192.0.2.1", port: 3478))
            #expect(try STUNServerAddress(parsing: "[2001:db8::1]:3479") == STUNServerAddress(host: "2001:db8::1", port: 3479))
            #expect(STUNServerAddress(host: "2001:db8::1", port: 3479).description == "[2001:db8::1]:3479")
            for bad in ["", ":3478", "host:", "host:0", "host:70000", "2001:db8::1", "[2001:db8::1", "[::1]x"] {
                #expect(throws: ICEError.self, "\(bad)") { try STUNServerAddress(parsing: bad) }
            }
        }
    }
}


/// libnice asks STUN servers in RFC 3489's format (no magic cookie, a 128-bit transaction ID),
/// which an RFC 5389 server answers with MAPPED-ADDRESS (RFC 5389 section 12.2): built here by
/// hand, since the STUN module reads RFC 5389 messages only.
func classicBindingResponse(to request: [UInt8], mappedAddress: [UInt8], mappedPort: UInt16) -> [UInt8]? {
    guard request.count >= 20, request[0] == 0x00, request[1] == 0x01 else { return nil }
    let mapped: [UInt8] = [0x00, 0x01, UInt8(mappedPort >> 8), UInt8(mappedPort & 0xFF)] + mappedAddress
    return [0x01, 0x01, 0x00, 0x0C] + request[4..<20] + [0x00, 0x01, 0x00, 0x08] + mapped
}
