import ICE
import Testing

extension ICEAgentSuites {
    /// Two agents in one process connect over 127.0.0.1 or ::1 (libnice skips loopback unless told to
    /// use it), exchange datagrams both ways and close, leaving no thread or socket behind.
    @Suite("ICE: two agents over loopback")
    struct ICEAgentPairTests {
        struct Roles: Sendable, CustomStringConvertible {
            let controlledMode: ICEMode
            let address: String
            var description: String { "controlling full + controlled \(controlledMode) on \(address)" }
        }

        @Test(.timeLimit(.minutes(1)), arguments: [
            Roles(controlledMode: .full, address: "127.0.0.1"),
            Roles(controlledMode: .lite, address: "127.0.0.1"),
            Roles(controlledMode: .full, address: "::1"),
        ])
        func connectExchangeAndClose(_ roles: Roles) async throws {
            let threadsBefore = ProcessResources.threadCount(named: "camrtp.ice")
            let controllingInbox = DatagramInbox()
            let controlledInbox = DatagramInbox()
            let controlling = try ICEAgent(
                configuration: ICEConfiguration(role: .controlling, localAddresses: [roles.address]),
                receiveHandler: controllingInbox.handler)
            let controlled = try ICEAgent(
                configuration: ICEConfiguration(role: .controlled, mode: roles.controlledMode, localAddresses: [roles.address]),
                receiveHandler: controlledInbox.handler)
            #expect(controlling.localCredentials != controlled.localCredentials)

            async let controllingGathered = controlling.gatherCandidates()
            async let controlledGathered = controlled.gatherCandidates()
            let (controllingCandidates, controlledCandidates) = try await (controllingGathered, controlledGathered)
            for candidate in controllingCandidates + controlledCandidates {
                #expect(candidate.address == roles.address)
                #expect(candidate.isIPv6 == roles.address.contains(":"))
                #expect(candidate.type == .host)
                #expect(candidate.componentID == 1)
            }
            #expect(controllingCandidates.count == 1)
            let ports = Set((controllingCandidates + controlledCandidates).map(\.port))
            #expect(ProcessResources.boundUDPPorts().isSuperset(of: ports))

            try ICEAgent.exchange(controlling, controllingCandidates, controlled, controlledCandidates)
            async let controllingEvents = controlling.waitForState(.ready)
            async let controlledEvents = controlled.waitForState(.ready)
            let (seenByControlling, _) = try await (controllingEvents, controlledEvents)
            // Named by now: each agent runs libnice on one thread of its own.
            #expect(ProcessResources.threadCount(named: "camrtp.ice") == threadsBefore + 2)
            #expect(seenByControlling.contains(.stateChanged(.checking)))
            #expect(seenByControlling.contains(.stateChanged(.connected)))

            let pair = try #require(controlling.selectedPair)
            #expect(pair.local.port == controllingCandidates[0].port)
            #expect(pair.remote.port == controlledCandidates[0].port)
            #expect(controlled.selectedPair?.remote.port == controllingCandidates[0].port)

            let outbound: [[UInt8]] = (0..<10).map { [0x80, 96, 0, UInt8($0)] + [UInt8](repeating: UInt8($0), count: 1_000) }
            let inbound: [[UInt8]] = (0..<10).map { [22, 0xFE, 0xFD, UInt8($0)] }
            async let receivedByControlled = controlledInbox.next(outbound.count)
            async let receivedByControlling = controllingInbox.next(inbound.count)
            for datagram in outbound { #expect(controlling.send(datagram)) }
            for datagram in inbound { #expect(controlled.send(datagram)) }
            #expect(await receivedByControlled == outbound)
            #expect(await receivedByControlling == inbound)

            controlling.close()
            controlled.close()
            #expect(!controlling.send([1, 2, 3]))
            await ProcessResources.waitForThreads(named: "camrtp.ice", toNumber: threadsBefore)
            #expect(ProcessResources.boundUDPPorts().isDisjoint(with: ports))
            for await _ in controlling.events {}
        }

        /// Trickle ICE: each agent forwards its candidates to the other from its event handler as
        /// they are found, and end-of-candidates when gathering is done; credentials go first.
        @Test(.timeLimit(.minutes(1)))
        func trickledCandidatesConnect() async throws {
            let controllingSlot = AgentHolder()
            let controlledSlot = AgentHolder()
            func forward(to slot: AgentHolder) -> @Sendable (ICEEvent) -> Void {
                { event in
                    guard let peer = slot.peek() else { return }
                    switch event {
                    case .localCandidate(let candidate): _ = try? peer.addRemoteCandidates([candidate])
                    case .gatheringDone: try? peer.endOfRemoteCandidates()
                    default: break
                    }
                }
            }
            let controlling = try ICEAgent(
                configuration: ICEConfiguration(role: .controlling, localAddresses: ["127.0.0.1"]),
                eventHandler: forward(to: controlledSlot), receiveHandler: { _ in })
            let controlled = try ICEAgent(
                configuration: ICEConfiguration(role: .controlled, localAddresses: ["127.0.0.1"]),
                eventHandler: forward(to: controllingSlot), receiveHandler: { _ in })
            controllingSlot.set(controlling)
            controlledSlot.set(controlled)
            try controlling.setRemoteCredentials(controlled.localCredentials)
            try controlled.setRemoteCredentials(controlling.localCredentials)

            async let controllingGathered = controlling.gatherCandidates()
            async let controlledGathered = controlled.gatherCandidates()
            _ = try await (controllingGathered, controlledGathered)
            async let controllingReady = controlling.waitForState(.ready)
            async let controlledReady = controlled.waitForState(.ready)
            _ = try await (controllingReady, controlledReady)
            #expect(controlling.selectedPair?.remote.port == controlled.localCandidates.first?.port)

            _ = controllingSlot.take()
            _ = controlledSlot.take()
            controlling.close()
            controlled.close()
        }
    }
}
