import Foundation
import ICE
import TestSupport
import Testing

extension ICEAgentSuites {
    /// Interop with an ICE agent we did not write: aiortc's aioice, in Tests/Tools/ice_peer.py.
    /// Both run in a network namespace of the test's own whose only usable address is 127.0.0.2
    /// (aioice skips 127.0.0.1) and an IPv6 one of the unique-local range; our agent gathers on every
    /// usable interface there, as in production. The peer (IPv4 only) echoes each datagram back.
    @Suite("ICE: interop with aioice")
    struct ICEInteropTests {
        struct Case: Sendable, CustomStringConvertible {
            let role: ICERole
            let mode: ICEMode
            var description: String { "we are \(role) \(mode)" }
        }

        static let peerScript = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Tools/ice_peer.py").path

        @Test(.timeLimit(.minutes(1)), arguments: [
            Case(role: .controlling, mode: .full),  // WHIP: we publish and offer
            Case(role: .controlled, mode: .full),
            Case(role: .controlled, mode: .lite),  // WHEP: a browser offers to our server
        ])
        func connectAndEcho(_ testCase: Case) async throws {
            try #require(getuid() == 0, "network namespaces need root")
            try #require(ExternalTool.locate("/usr/bin/python3") != nil, "aioice needs Debian's python3-aiortc")
            let namespace = try NetworkNamespace(purpose: "ice")
            defer { namespace.remove() }

            let inbox = DatagramInbox()
            let agent = try await namespace.run {
                try ICEAgent(configuration: ICEConfiguration(role: testCase.role, mode: testCase.mode), receiveHandler: inbox.handler)
            }
            defer { agent.close() }
            var peerArguments = ["/usr/bin/python3", Self.peerScript]
            if testCase.role == .controlled { peerArguments.append("--controlling") }
            if testCase.mode == .lite { peerArguments.append("--remote-lite") }
            let peer = try LineProcess(namespace.command(peerArguments))
            defer { peer.kill() }

            let candidates = try await agent.gatherCandidates()
            // Every usable interface of the namespace: v0's IPv4 and IPv6 addresses; lo (loopback)
            // and link-local addresses are skipped.
            #expect(Set(candidates.map(\.address)) == [NetworkNamespace.ipv4Address, NetworkNamespace.ipv6Address])
            #expect(candidates.allSatisfy { $0.type == .host })
            let peerSide = try await PeerDescription.read(from: peer)
            try peer.write(line: PeerDescription(agent.localCredentials, candidates).jsonLine())

            try agent.setRemoteCredentials(peerSide.credentials)
            try agent.addRemoteCandidates(peerSide.iceCandidates)
            try agent.endOfRemoteCandidates()
            let connected = try #require(await peer.readLine(), "the peer ended without a word")
            #expect(connected.contains("\"connected\": true"), "aioice: \(connected)")
            if agent.state != .ready { try await agent.waitForState(.ready) }
            let pair = try #require(agent.selectedPair)
            #expect(pair.local.address == "127.0.0.2")
            #expect(pair.remote.address == "127.0.0.2")

            let datagrams: [[UInt8]] = (0..<5).map { [0x80, 96, 0, UInt8($0)] + [UInt8](repeating: 0xA5, count: 200) }
            async let echoes = inbox.next(datagrams.count)
            for datagram in datagrams { #expect(agent.send(datagram)) }
            #expect(await echoes == datagrams)

            let exit = await peer.finish()
            #expect(exit.status == 0, "aioice: \(exit.stderr)")
        }
    }
}

/// One side's ufrag, password and candidates, as ice_peer.py reads and writes them.
struct PeerDescription: Codable {
    struct Candidate: Codable {
        var foundation: String
        var component: Int
        var priority: UInt32
        var address: String
        var port: UInt16
        var type: String
        var relatedAddress: String?
        var relatedPort: UInt16?
    }

    var ufrag: String
    var pwd: String
    var candidates: [Candidate]

    init(_ credentials: ICECredentials, _ candidates: [ICECandidate]) {
        ufrag = credentials.usernameFragment
        pwd = credentials.password
        self.candidates = candidates.map {
            Candidate(
                foundation: $0.foundation, component: $0.componentID, priority: $0.priority, address: $0.address,
                port: $0.port, type: $0.type.rawValue, relatedAddress: $0.relatedAddress, relatedPort: $0.relatedPort)
        }
    }

    static func read(from peer: LineProcess) async throws -> PeerDescription {
        guard let line = await peer.readLine() else {
            let exit = await peer.finish()
            throw ICETestError("the ICE peer ended before gathering: \(exit.stderr)")
        }
        return try JSONDecoder().decode(PeerDescription.self, from: Data(line.utf8))
    }

    func jsonLine() throws -> String {
        String(decoding: try JSONEncoder().encode(self), as: UTF8.self)
    }

    var credentials: ICECredentials { ICECredentials(usernameFragment: ufrag, password: pwd) }

    var iceCandidates: [ICECandidate] {
        candidates.compactMap { candidate in
            ICECandidateType(rawValue: candidate.type).map {
                ICECandidate(
                    foundation: candidate.foundation, componentID: candidate.component, priority: candidate.priority,
                    address: candidate.address, port: candidate.port, type: $0,
                    relatedAddress: candidate.relatedAddress, relatedPort: candidate.relatedPort)
            }
        }
    }
}
