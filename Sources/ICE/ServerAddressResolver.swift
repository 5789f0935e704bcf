import Glibc

/// Turns a STUN server's host into the address literal libnice's `stun-server` property takes
/// (it resolves nothing itself). Blocking: runs on the agent's thread.
enum STUNServerResolver {
    /// The first IPv4 address of `server.host`, else its first IPv6 address.
    static func resolve(_ server: STUNServerAddress) throws(ICEError) -> String {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_UDP)
        var results: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(server.host, nil, &hints, &results)
        guard status == 0, let results else {
            throw ICEError("resolve STUN server \(server.host)", detail: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(results) }
        var addresses: [(family: Int32, text: String)] = []
        for entry in sequence(first: results, next: { $0.pointee.ai_next }) {
            guard let text = numericHost(entry.pointee) else { continue }
            addresses.append((entry.pointee.ai_family, text))
        }
        guard let chosen = addresses.first(where: { $0.family == AF_INET }) ?? addresses.first else {
            throw ICEError("resolve STUN server \(server.host)", detail: "no IPv4 or IPv6 address")
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
