import ICE
import STUN
import Synchronization
import Testing

extension ICEAgentSuites {
    /// libnice's connectivity checks meet a minimal ICE responder made from the STUN module: the
    /// module parses libnice's USERNAME, PRIORITY, ICE-CONTROLLING and USE-CANDIDATE, verifies its
    /// MESSAGE-INTEGRITY and FINGERPRINT, and signs answers that libnice accepts up to `ready`.
    @Suite("ICE: libnice against the STUN module")
    struct ICEAgainstSTUNModuleTests {
        @Test(.timeLimit(.minutes(1)))
        func controllingAgentNominatesAResponderBuiltFromTheSTUNModule() async throws {
            let peer = ICECredentials(usernameFragment: "peer", password: "peer-password-0123456789")
            let peerKey = Array(peer.password.utf8)
            let checks = Mutex<[STUNMessage]>([])
            let responder = try LoopbackResponder { request, sourcePort in
                guard let message = try? STUNMessage(parsing: request), message.type == .bindingRequest,
                      (try? hasValidMessageIntegrity(request, key: peerKey)) == true,
                      (try? hasValidFingerprint(request)) == true,
                      let source = STUNTransportAddress(address: "127.0.0.1", port: sourcePort)
                else { return nil }
                checks.withLock { $0.append(message) }
                var response = STUNMessage(
                    type: .bindingSuccessResponse, transactionID: message.transactionID, attributes: [.xorMappedAddress(source)])
                guard (try? response.appendMessageIntegrity(key: peerKey)) != nil, (try? response.appendFingerprint()) != nil else {
                    return nil
                }
                return response.serialized()
            }
            defer { responder.stop() }

            let agent = try ICEAgent(
                configuration: ICEConfiguration(role: .controlling, localAddresses: ["127.0.0.1"]), receiveHandler: { _ in })
            defer { agent.close() }
            let local = try #require(try await agent.gatherCandidates().first)
            try agent.setRemoteCredentials(peer)
            try agent.addRemoteCandidates([
                ICECandidate(foundation: "1", priority: 2_130_706_431, address: "127.0.0.1", port: responder.port, type: .host),
            ])
            try agent.endOfRemoteCandidates()
            try await agent.waitForState(.ready)

            #expect(agent.selectedPair?.remote.port == responder.port)
            let media: [UInt8] = [0x80, 96, 0, 1, 0xAB]
            #expect(agent.send(media))

            let seen = checks.withLock { $0 }
            let first = try #require(seen.first)
            #expect(first.username == "\(peer.usernameFragment):\(agent.localCredentials.usernameFragment)")
            // PRIORITY is what a peer-reflexive candidate would get: type preference 110
            // (RFC 8445 section 5.1.2.2), below the host candidate's (libnice: 120).
            #expect(first.attributes.contains { if case .priority(let value) = $0 { value >> 24 == 110 } else { false } })
            #expect(local.priority >> 24 > 110)
            #expect(first.attributes.contains { if case .iceControlling = $0 { true } else { false } })
            #expect(seen.contains { $0.attributes.contains(.useCandidate) })
            #expect(seen.allSatisfy { $0.xorMappedAddress == nil })
        }
    }
}
