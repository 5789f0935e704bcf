import Glibc

/// The host's IP addresses as ICE would gather on them, to notice a network change (a new
/// address after a roam, one gone with an interface): the addresses given with
/// `--local-address` that are present, or else every IPv4 and IPv6 address that is not loopback
/// or link-local, as libnice gathers by default.
public enum LocalAddresses {
    public static func current(restrictedTo wanted: [String]) -> Set<String> {
        var present = Set<String>()
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let list else { return present }
        defer { freeifaddrs(list) }
        for entry in sequence(first: list, next: { $0.pointee.ifa_next }) {
            guard let address = entry.pointee.ifa_addr, let text = numeric(address) else { continue }
            present.insert(text)
        }
        guard wanted.isEmpty else { return present.intersection(wanted) }
        return present.filter { !isLoopbackOrLinkLocal($0) }
    }

    static func isLoopbackOrLinkLocal(_ address: String) -> Bool {
        address.hasPrefix("127.") || address == "::1" || address.hasPrefix("169.254.") || address.lowercased().hasPrefix("fe80:")
    }

    private static func numeric(_ address: UnsafeMutablePointer<sockaddr>) -> String? {
        let family = Int32(address.pointee.sa_family)
        guard family == AF_INET || family == AF_INET6 else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(INET6_ADDRSTRLEN)) { buffer -> String? in
            let source: UnsafeRawPointer = family == AF_INET
                ? UnsafeRawPointer(address).advanced(by: MemoryLayout<sockaddr_in>.offset(of: \sockaddr_in.sin_addr)!)
                : UnsafeRawPointer(address).advanced(by: MemoryLayout<sockaddr_in6>.offset(of: \sockaddr_in6.sin6_addr)!)
            guard inet_ntop(family, source, buffer.baseAddress, socklen_t(buffer.count)) != nil else { return nil }
            return String(cString: buffer.baseAddress!)
        }
    }
}
