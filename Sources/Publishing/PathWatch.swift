import WebRTC

/// What tells `WHIPPublisher` that a ready session's path may be gone before ICE consent says
/// so (RFC 7675 waits 30 s, libnice 0.1.21's keepalives 50 s: `ICEConfiguration`): the
/// endpoint's RTCP stopping for `silenceNs` (every receiver sends reports about once a second),
/// or for `silenceWithoutRestartNs` when the endpoint takes no ICE restart, where the cure is a
/// whole new session; and the local addresses changing (looked at every `addressPollNs`). A
/// disconnected connection is lost already.
struct PathWatch {
    static let addressPollNs: Int64 = 2_000_000_000
    static let silenceWithoutRestartNs: Int64 = 10_000_000_000

    private let sender: WebRTCVideoSender
    private let localAddresses: [String]
    private var addresses: Set<String>
    private var addressesCheckedNs: Int64
    private var rtcpReceived: UInt64
    private var heardNs: Int64

    init(sender: WebRTCVideoSender, localAddresses: [String], nowNs: Int64) {
        self.sender = sender
        self.localAddresses = localAddresses
        addresses = LocalAddresses.current(restrictedTo: localAddresses)
        addressesCheckedNs = nowNs
        rtcpReceived = sender.connection.statistics.rtcpReceived
        heardNs = nowNs
    }

    /// Why the path looks lost now, or nil.
    mutating func trouble(state: WebRTCConnectionState, nowNs: Int64, silenceNs: Int64, restartSupported: Bool) -> String? {
        if state == .disconnected { return "the endpoint stopped answering ICE consent checks (RFC 7675)" }
        let received = sender.connection.statistics.rtcpReceived
        let limitNs = restartSupported ? silenceNs : max(silenceNs, Self.silenceWithoutRestartNs)
        if received != rtcpReceived {
            rtcpReceived = received
            heardNs = nowNs
        } else if state == .ready, nowNs - heardNs >= limitNs {
            heardNs = nowNs
            return "no RTCP from the endpoint for \(Double(limitNs / 100_000_000) / 10) s"
        }
        guard nowNs - addressesCheckedNs >= Self.addressPollNs else { return nil }
        addressesCheckedNs = nowNs
        let now = LocalAddresses.current(restrictedTo: localAddresses)
        guard now != addresses else { return nil }
        let change = now.subtracting(addresses).sorted().map { "+\($0)" } + addresses.subtracting(now).sorted().map { "-\($0)" }
        addresses = now
        return "the local addresses changed (\(change.joined(separator: " ")))"
    }
}
