import ICE
import ICEServers

/// `serve`'s check of its `--turn` servers at start-up: one gathering with them, as each
/// viewer's would be, so that a server that does not answer or refuses the credentials is named
/// once rather than failing every viewer in silence.
enum TURNProbe {
    /// The servers of `servers` that gave no relayed candidate (all of them when none came:
    /// libnice does not say which candidate came from which server).
    static func silentServers(_ servers: [ICEServer], localAddresses: [String]) async -> [ICEServer] {
        guard !servers.isEmpty else { return [] }
        let configuration = ICEConfiguration(role: .controlled, turnServers: servers, localAddresses: localAddresses, consentFreshness: false)
        guard let agent = try? ICEAgent(configuration: configuration, threadName: "camrtp.turnprobe", receiveHandler: { _ in }) else {
            return servers
        }
        defer { agent.close() }
        let candidates = (try? await agent.gatherCandidates()) ?? []
        return candidates.contains { $0.type == .relayed } ? [] : servers
    }
}
