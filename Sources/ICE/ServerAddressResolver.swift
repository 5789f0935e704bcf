import Glibc

/// Turns a STUN or TURN server's host into the address literal libnice takes (it resolves
/// nothing itself). Blocking: runs on the agent's thread.
enum ServerAddressResolver {
    /// The first IPv4 address of `host`, else its first IPv6 address. `server` names it in the
    /// error (`STUN server stun.example.org`).
    static func resolve(_ host: String, server: String) throws(ICEError) -> String {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_UDP)
        var results: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &results)
        guard status == 0, let results else {
            throw ICEError("resolve \(server)", detail: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(results) }
        var addresses: [(family: Int32, text: String)] = []
        for entry in sequence(first: results, next: { $0.pointee.ai_next }) {
            guard let text = numericHost(entry.pointee) else { continue }
            addresses.append((entry.pointee.ai_family, text))
        }
        guard let chosen = addresses.first(where: { $0.family == AF_INET }) ?? addresses.first else {
            throw ICEError("resolve \(server)", detail: "no IPv4 or IPv6 address")
        }
        return chosen.text
    }

    private static func numericHost(_ entry: addrinfo) -> String? {
        guard let address = entry.ai_addr else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(NI_MAXHOST)) { host in
            host.initialize(repeating: 0)
            guard getnameinfo(address, entry.ai_addrlen, host.baseAddress, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else {
                return nil
            }
            return String(cString: host.baseAddress!)
        }
    }
}
