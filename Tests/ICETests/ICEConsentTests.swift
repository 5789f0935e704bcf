import ICE
import Testing

/// RFC 7675: once the peer stops answering consent checks, the session fails (libnice 0.1.21:
/// 10 s after the last response; RFC 7675's ceiling is 30 s), and sending stops.
@Suite("ICE: consent freshness", .serialized)
struct ICEConsentTests {
    @Test(.timeLimit(.minutes(2)))
    func sessionFailsWhenThePeerStopsAnswering() async throws {
        let controlling = try ICEAgent(
            configuration: ICEConfiguration(role: .controlling, localAddresses: ["127.0.0.1"]),
            receiveHandler: { _ in })
        let controlled = try ICEAgent(
            configuration: ICEConfiguration(role: .controlled, localAddresses: ["127.0.0.1"]),
            receiveHandler: { _ in })
        async let controllingGathered = controlling.gatherCandidates()
        async let controlledGathered = controlled.gatherCandidates()
        let (controllingCandidates, controlledCandidates) = try await (controllingGathered, controlledGathered)
        try ICEAgent.exchange(controlling, controllingCandidates, controlled, controlledCandidates)
        async let controllingReady = controlling.waitForState(.ready)
        async let controlledReady = controlled.waitForState(.ready)
        _ = try await (controllingReady, controlledReady)
        #expect(controlling.send([0x80, 1, 2, 3]))

        controlled.close()
        try await controlling.waitForState(.failed)
        #expect(!controlling.send([0x80, 1, 2, 3]))
        controlling.close()
    }
}
