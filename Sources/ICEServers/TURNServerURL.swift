extension ICEServer {
    /// Reads a TURN server in the URL form GStreamer's webrtcbin takes for its `turn-server`
    /// property, credentials inside:
    ///
    ///     turn://USER:PASS@HOST[:PORT][?transport=udp|tcp]
    ///     turns://USER:PASS@HOST[:PORT][?transport=tcp]
    ///
    /// USER and PASS are percent-decoded (RFC 3986 section 2.1), so `%40` is an `@` and `%3A` a
    /// `:`. Credentials of TURN REST services hold `/`, `+` and `=`, which are taken as they are:
    /// the host starts after the last `@`, and the password after the first `:` of the user
    /// information. The port defaults to 3478 (5349 for `turns`).
    public init(turnURL text: String) throws(ICEServerError) {
        guard text.utf8.count <= ICEServerURI.maximumLength else { throw .tooLong(limit: ICEServerURI.maximumLength) }
        let scheme: ICEServerURI.Scheme
        let rest: Substring
        if let remainder = Self.dropPrefix("turn://", of: text) {
            (scheme, rest) = (.turn, remainder)
        } else if let remainder = Self.dropPrefix("turns://", of: text) {
            (scheme, rest) = (.turns, remainder)
        } else {
            throw .unknownScheme
        }
        guard let at = rest.lastIndex(of: "@") else { throw .missingCredentials }
        let userInformation = rest[..<at]
        var location = rest[rest.index(after: at)...]
        guard let colon = userInformation.firstIndex(of: ":") else { throw .missingCredentials }
        let username = try Self.percentDecoded(userInformation[..<colon])
        let password = try Self.percentDecoded(userInformation[userInformation.index(after: colon)...])
        guard !username.isEmpty, !password.isEmpty else { throw .missingCredentials }
        var transport: ICEServerURI.Transport?
        if let mark = location.firstIndex(of: "?") {
            transport = try ICEServerURI.transport(location[location.index(after: mark)...])
            location = location[..<mark]
        }
        if location.hasSuffix("/") { location = location.dropLast() }
        let (host, port) = try HostAndPort.parse(location)
        if scheme == .turns && transport == .udp { throw .unsupportedTransport("udp with turns (DTLS)") }
        try self.init(uri: ICEServerURI(scheme: scheme, host: host, port: port, transport: transport), username: username, credential: password)
    }

    private static func dropPrefix(_ prefix: String, of text: String) -> Substring? {
        guard text.count >= prefix.count, text.prefix(prefix.count).lowercased() == prefix else { return nil }
        return text.dropFirst(prefix.count)
    }

    /// `%XX` sequences to bytes, then UTF-8; anything else as it is.
    static func percentDecoded(_ text: Substring) throws(ICEServerError) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                throw .badPercentEncoding
            }
            bytes.append(high << 4 | low)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else { throw .badPercentEncoding }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
