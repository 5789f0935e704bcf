import ICEServers
import Testing

@Suite("ICE servers: STUN and TURN URIs (RFC 7064, RFC 7065)")
struct ICEServerURITests {
    /// The examples of RFC 7064 section 3.2 and RFC 7065 section 3.2, and the defaults they imply.
    @Test(arguments: [
        ("stun:example.org", ICEServerURI.Scheme.stun, "example.org", UInt16(3478), nil as ICEServerURI.Transport?),
        ("stuns:example.org", .stuns, "example.org", 5349, nil),
        ("stun:example.org:8000", .stun, "example.org", 8000, nil),
        ("turn:example.org", .turn, "example.org", 3478, .udp),
        ("turns:example.org", .turns, "example.org", 5349, .tcp),
        ("turn:example.org:8000", .turn, "example.org", 8000, .udp),
        ("turn:example.org?transport=udp", .turn, "example.org", 3478, .udp),
        ("turn:example.org?transport=tcp", .turn, "example.org", 3478, .tcp),
        ("turns:example.org?transport=tcp", .turns, "example.org", 5349, .tcp),
        ("TURN:Example.ORG:3479?Transport=TCP", .turn, "example.org", 3479, .tcp),
        ("turn:192.0.2.1:3478", .turn, "192.0.2.1", 3478, .udp),
        ("turn:[2001:db8::1]:3478?transport=udp", .turn, "2001:db8::1", 3478, .udp),
        ("stun:[::1]", .stun, "::1", 3478, nil),
    ])
    func readsTheRFCExamples(_ text: String, _ scheme: ICEServerURI.Scheme, _ host: String, _ port: UInt16, _ transport: ICEServerURI.Transport?) throws {
        let uri = try ICEServerURI(parsing: text)
        #expect(uri.scheme == scheme)
        #expect(uri.host == host)
        #expect(uri.port == port)
        #expect(uri.transport == transport)
        // Written out in full, it reads back the same.
        #expect(try ICEServerURI(parsing: uri.description) == uri)
    }

    @Test func writesPortAndTransportInFull() throws {
        #expect(try ICEServerURI(parsing: "turn:example.org").description == "turn:example.org:3478?transport=udp")
        #expect(try ICEServerURI(parsing: "stun:[2001:db8::1]").description == "stun:[2001:db8::1]:3478")
        #expect(try ICEServerURI(parsing: "turns:example.org").description == "turns:example.org:5349?transport=tcp")
    }

    @Test(arguments: [
        ("http://example.org", ICEServerError.unknownScheme),
        ("example.org:3478", .unknownScheme),
        ("", .unknownScheme),
        ("turn://example.org", .authorityForm),
        ("stun:example.org?transport=udp", .queryOnSTUN),
        ("turn:example.org?transport=sctp", .unsupportedTransport("sctp")),
        ("turns:example.org?transport=udp", .unsupportedTransport("udp with turns (DTLS)")),
        ("turn:example.org?proto=udp", .badQuery),
        ("turn:", .badHost),
        ("turn:exa mple.org", .badHost),
        ("turn:user@example.org", .badHost),
        ("turn:[2001:db8::1", .badHost),
        ("turn:[example.org]", .badHost),
        ("turn:example.org:0", .badPort),
        ("turn:example.org:65536", .badPort),
        ("turn:example.org:", .badPort),
        ("turn:example.org:-1", .badPort),
        ("turn:2001:db8::1", .badHost),
    ])
    func refusesWhatIsNoURI(_ text: String, _ error: ICEServerError) {
        #expect(throws: error) { try ICEServerURI(parsing: text) }
    }

    @Test func refusesOverlongTextBeforeReadingIt() {
        let text = "turn:" + String(repeating: "a", count: ICEServerURI.maximumLength)
        #expect(throws: ICEServerError.tooLong(limit: ICEServerURI.maximumLength)) { try ICEServerURI(parsing: text) }
    }

    @Test func turnNeedsCredentialsAndSTUNDropsThem() throws {
        let turn = try ICEServerURI(parsing: "turn:example.org")
        #expect(throws: ICEServerError.turnWithoutCredentials) { try ICEServer(uri: turn) }
        #expect(throws: ICEServerError.turnWithoutCredentials) { try ICEServer(uri: turn, username: "u", credential: "") }
        #expect(throws: ICEServerError.controlCharacter) { try ICEServer(uri: turn, username: "u\r\n", credential: "p") }
        let stun = try ICEServer(uri: ICEServerURI(parsing: "stun:example.org"), username: "u", credential: "p")
        #expect(stun.username == nil && stun.credential == nil)
    }
}

@Suite("ICE servers: --turn URLs (GStreamer's turn-server form)")
struct TURNServerURLTests {
    @Test func readsUserPasswordHostPortAndTransport() throws {
        let server = try ICEServer(turnURL: "turn://alice:s3cret@turn.example.org:3479?transport=tcp")
        #expect(server.uri == ICEServerURI(scheme: .turn, host: "turn.example.org", port: 3479, transport: .tcp))
        #expect(server.username == "alice" && server.credential == "s3cret")
        // The description is the URI alone: no credential is ever printed.
        #expect(server.description == "turn:turn.example.org:3479?transport=tcp")
        #expect(!"\(server)".contains("s3cret") && !"\(server)".contains("alice"))
    }

    @Test(arguments: [
        ("turn://u:p@example.org", "turn:example.org:3478?transport=udp"),
        ("turns://u:p@example.org", "turns:example.org:5349?transport=tcp"),
        ("turns://u:p@example.org:443", "turns:example.org:443?transport=tcp"),
        ("TURN://u:p@192.0.2.7:3478/", "turn:192.0.2.7:3478?transport=udp"),
        ("turn://u:p@[2001:db8::7]:3478?transport=udp", "turn:[2001:db8::7]:3478?transport=udp"),
    ])
    func defaultsFollowTheScheme(_ text: String, _ uri: String) throws {
        #expect(try ICEServer(turnURL: text).uri.description == uri)
    }

    /// RFC 3986 section 2.1 percent-encoding, and the raw characters of TURN REST credentials.
    @Test func decodesPercentEncodedCredentials() throws {
        let encoded = try ICEServer(turnURL: "turn://us%40er:p%3Ass%2Fw%25rd@example.org")
        #expect(encoded.username == "us@er" && encoded.credential == "p:ss/w%rd")
        let rest = try ICEServer(turnURL: "turn://1735689600:camera:ab/cd+ef==@example.org:3478")
        #expect(rest.username == "1735689600" && rest.credential == "camera:ab/cd+ef==")
        let accented = try ICEServer(turnURL: "turn://ren%C3%A9:p@example.org")
        #expect(accented.username == "rené")
    }

    @Test(arguments: [
        ("turn:example.org", ICEServerError.unknownScheme),
        ("stun://u:p@example.org", .unknownScheme),
        ("turn://example.org:3478", .missingCredentials),
        ("turn://user@example.org", .missingCredentials),
        ("turn://:p@example.org", .missingCredentials),
        ("turn://u:@example.org", .missingCredentials),
        ("turn://u:p%4@example.org", .badPercentEncoding),
        ("turn://u:p%zz@example.org", .badPercentEncoding),
        ("turn://u:p%FF@example.org", .badPercentEncoding),
        ("turn://u:p%0A@example.org", .controlCharacter),
        ("turn://u:p%00@example.org", .controlCharacter),
        ("turn://u:p@example.org:99999", .badPort),
        ("turn://u:p@", .badHost),
        ("turn://u:p@example.org?transport=tls", .unsupportedTransport("tls")),
        ("turns://u:p@example.org?transport=udp", .unsupportedTransport("udp with turns (DTLS)")),
    ])
    func refusesWithoutRepeatingTheInput(_ text: String, _ error: ICEServerError) {
        #expect(throws: error) { try ICEServer(turnURL: text) }
        #expect(!error.description.contains("example.org"))
    }
}
