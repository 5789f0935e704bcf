import ICEServers
import MediaCore
import Publishing
import WebRTC

/// The line `publish` prints for each thing its publisher does; credentials never appear, as
/// ICE servers print as their URIs alone.
struct PublishNotes: Sendable {
    let source: String
    let endpoint: String
    /// The `--turn` servers, told apart from the endpoint's in what is printed.
    let configuredTURN: [ICEServer]

    func line(for event: PublisherEvent) -> String? {
        switch event {
        case .published(let session, let reconnection):
            let what = reconnection == 0 ? "published \(source) to \(endpoint)" : "published again to \(endpoint)"
            return "\(what) (session \(session.resource)); connecting"
        case .connected(let statistics, let reconnection, let restarted):
            var line = restarted ? "ICE restarted" : reconnection == 0 ? "connected" : "connected again (reconnection \(reconnection))"
            if let pair = statistics.selectedPair { line += " via \(pair)" }
            if restarted { return line }
            if let ice = statistics.timeline.iceMs { line += ": ICE \(DecimalText.fixed(ice, decimals: 1)) ms" }
            if let dtls = statistics.timeline.dtlsMs { line += ", DTLS \(DecimalText.fixed(dtls, decimals: 1)) ms" }
            if let suite = statistics.dtls.suite { line += " (\(suite))" }
            return line
        case .iceServersOffered(let servers):
            return "the endpoint offers ICE servers \(Self.list(servers)); the next session gathers with them"
        case .turnServersSilent(let servers):
            let configured = servers.filter { server in configuredTURN.contains { $0.uri == server.uri } }
            let offered = servers.filter { server in !configuredTURN.contains { $0.uri == server.uri } }
            var named: [String] = []
            if !configured.isEmpty { named.append("--turn \(Self.list(configured))") }
            if !offered.isEmpty { named.append("the endpoint's TURN server \(Self.list(offered))") }
            return "\(named.joined(separator: " and ")) gave no relay candidate: the server did not answer or refused the user name "
                + "and password (check --turn); going on without a relay"
        case .restartingICE(let cause):
            return "restarting ICE: \(cause)"
        case .patchRefused(let what, let answer):
            return "the endpoint takes no \(what): \(answer)"
        case .reconnecting(let cause, let delayNs, let attempt):
            return "reconnecting in \(DecimalText.fixed(Double(delayNs) / 1e9, decimals: 1)) s (attempt \(attempt)): \(cause)"
        }
    }

    private static func list(_ servers: [ICEServer]) -> String {
        servers.map(\.description).joined(separator: ", ")
    }
}
