import ICE
import Testing

extension ICEAgentSuites {
    /// RFC 7675: once the peer vanishes, the session fails and sending stops, on the full side and on
    /// a lite one alike (libnice 0.1.21 gives up 10 s after the last sign of the peer; RFC 7675's
    /// ceiling is 30 s).
    @Suite("ICE: consent freshness")
    struct ICEConsentTests {
        struct Case: Sendable, CustomStringConvertible {
            /// The mode of the controlled agent.
            let controlledMode: ICEMode
            /// Which agent stays; the other one vanishes.
            let survivor: ICERole
            var description: String { "controlled \(controlledMode), \(survivor) side stays" }
        }

        @Test(.timeLimit(.minutes(2)), arguments: [
            Case(controlledMode: .full, survivor: .controlling),  // a WHIP ingest goes away
            Case(controlledMode: .lite, survivor: .controlled),  // a WHEP viewer goes away
        ])
        func sessionFailsWhenThePeerStopsAnswering(_ testCase: Case) async throws {
            let controlling = try ICEAgent(
                configuration: ICEConfiguration(role: .controlling, localAddresses: ["127.0.0.1"]),
                receiveHandler: { _ in })
            let controlled = try ICEAgent(
                configuration: ICEConfiguration(role: .controlled, mode: testCase.controlledMode, localAddresses: ["127.0.0.1"]),
                receiveHandler: { _ in })
            async let controllingGathered = controlling.gatherCandidates()
            async let controlledGathered = controlled.gatherCandidates()
            let (controllingCandidates, controlledCandidates) = try await (controllingGathered, controlledGathered)
            try ICEAgent.exchange(controlling, controllingCandidates, controlled, controlledCandidates)
            async let controllingReady = controlling.waitForState(.ready)
            async let controlledReady = controlled.waitForState(.ready)
            _ = try await (controllingReady, controlledReady)

            let (survivor, vanishing) = testCase.survivor == .controlling ? (controlling, controlled) : (controlled, controlling)
            #expect(survivor.send([0x80, 1, 2, 3]))
            vanishing.close()
            try await survivor.waitForState(.failed)
            #expect(!survivor.send([0x80, 1, 2, 3]))
            survivor.close()
        }
    }
}
