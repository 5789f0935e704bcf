import Foundation
import ICE
import TestSupport
import Testing

extension ICEAgentSuites {
    /// RFC 7675: once the peer vanishes, the session fails and sending stops, on the full side and on
    /// a lite one alike: after 30 s with libnice 0.1.22 and later; with libnice 0.1.21, whose own
    /// consent timeout is 10 s, the agent's keepalive checks end it after 50 s
    /// (`ICEConfiguration.consentFreshness`). A path that goes quiet for less keeps the session.
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
            try await ICEAgent.connect(controlling, controlled)

            let (survivor, vanishing) = testCase.survivor == .controlling ? (controlling, controlled) : (controlled, controlling)
            #expect(survivor.send([0x80, 1, 2, 3]))
            vanishing.close()
            try await survivor.waitForState(.failed)
            #expect(!survivor.send([0x80, 1, 2, 3]))
            survivor.close()
        }

        /// Every datagram between the agents is dropped for 12 s (nftables, in a namespace of the
        /// test's own): longer than libnice 0.1.21's consent timeout, whose checks are never sent
        /// twice, so that one lost check on a lossy path ended a session; shorter than RFC 7675's
        /// 30 s. Neither side fails, both may still send, and datagrams flow again once the path
        /// carries them.
        @Test(.timeLimit(.minutes(2)))
        func aPathQuietForTwelveSecondsKeepsTheSession() async throws {
            try #require(getuid() == 0, "network namespaces need root")
            try #require(FileManager.default.isExecutableFile(atPath: "/usr/sbin/nft"), "needs nft (apt-get install nftables)")
            let namespace = try NetworkNamespace(purpose: "consent")
            defer { namespace.remove() }
            let address = NetworkNamespace.ipv4Address
            let controllingInbox = DatagramInbox(), controlledInbox = DatagramInbox()
            let (controlling, controlled) = try await namespace.run {
                (try ICEAgent(configuration: ICEConfiguration(role: .controlling, localAddresses: [address]),
                              receiveHandler: controllingInbox.handler),
                 try ICEAgent(configuration: ICEConfiguration(role: .controlled, mode: .lite, localAddresses: [address]),
                              receiveHandler: controlledInbox.handler))
            }
            defer { controlling.close(); controlled.close() }
            try await ICEAgent.connect(controlling, controlled)
            let failures = Task {
                await withTaskGroup(of: Bool.self) { group in
                    for agent in [controlling, controlled] {
                        group.addTask { await agent.events.contains(.stateChanged(.failed)) }
                    }
                    return await group.reduce(false) { $0 || $1 }
                }
            }

            let nft = { (rule: String) throws in
                let command = namespace.command(["/usr/sbin/nft", rule])
                let result = try ExternalTool(command[0]).run(Array(command.dropFirst()))
                try #require(result.status == 0, "nft \(rule): \(result.stderr)")
            }
            try nft("add table inet quiet")
            try nft("add chain inet quiet input { type filter hook input priority 0; }")
            try nft("add rule inet quiet input meta l4proto udp drop")
            try await Task.sleep(for: .seconds(12))  // the outage itself, not a wait for an event
            try nft("delete table inet quiet")

            let datagram: [UInt8] = [0x80, 96, 0, 1] + [UInt8](repeating: 0x5A, count: 100)
            #expect(controlling.send(datagram), "the controlling side lost consent")
            #expect(controlled.send(datagram), "the controlled side lost consent")
            #expect(await controlledInbox.next(1) == [datagram])
            #expect(await controllingInbox.next(1) == [datagram])
            controlling.close()
            controlled.close()
            #expect(await failures.value == false, "a side failed during the quiet path")
        }
    }
}
