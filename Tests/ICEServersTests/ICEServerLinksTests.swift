import ICEServers
import Testing

@Suite("ICE servers: Link header fields (RFC 8288, RFC 9725 section 4.6)")
struct ICEServerLinksTests {
    /// RFC 9725 section 4.6's example, one field per server as the RFC shows it.
    static let rfcExample = [
        #"<stun:stun.example.net>; rel="ice-server""#,
        #"<turn:turn.example.net?transport=udp>; rel="ice-server"; username="user"; credential="myPassword"; credential-type="password""#,
        #"<turn:turn.example.net?transport=tcp>; rel="ice-server"; username="user"; credential="myPassword"; credential-type="password""#,
        #"<turns:turn.example.net?transport=tcp>; rel="ice-server"; username="user"; credential="myPassword"; credential-type="password""#,
    ]

    @Test func readsTheRFCExample() throws {
        let links = ICEServerLinks(fieldValues: Self.rfcExample)
        #expect(links.problems.isEmpty, "\(links.problems)")
        #expect(links.servers.map(\.description) == [
            "stun:stun.example.net:3478", "turn:turn.example.net:3478?transport=udp", "turn:turn.example.net:3478?transport=tcp",
            "turns:turn.example.net:5349?transport=tcp",
        ])
        #expect(links.servers[0].username == nil)
        #expect(links.servers.dropFirst().allSatisfy { $0.username == "user" && $0.credential == "myPassword" })
    }

    /// The same links folded into one field (a list, RFC 9110 section 5.6.1), with the spacing,
    /// case, token values and empty list elements RFC 8288's grammar allows.
    @Test func readsOneFieldWithManyLinks() {
        let field = #"<https://example.org/next>; rel=next, , <stun:a.example>;REL="ICE-Server",<turn:b.example:3479>;rel=ice-server;username=u;credential="p, \"q\"""#
        let links = ICEServerLinks(fieldValues: [field])
        #expect(links.problems.isEmpty, "\(links.problems)")
        #expect(links.servers.map(\.description) == ["stun:a.example:3478", "turn:b.example:3479?transport=udp"])
        #expect(links.servers.last?.credential == #"p, "q""#)
    }

    @Test func onlyTheFirstRelCountsAndOtherRelationsAreSkipped() {
        let links = ICEServerLinks(fieldValues: [
            #"<stun:a.example>; rel="next"; rel="ice-server""#,
            #"<stun:b.example>; rel="preload ice-server""#,
            #"<stun:c.example>"#,
        ])
        #expect(links.servers.map(\.uri.host) == ["b.example"])
        #expect(links.problems.isEmpty)
    }

    /// A bad link is skipped by position, without quoting it (it may hold a credential); the
    /// rest of the field still counts.
    @Test func skipsUnusableLinksByPosition() {
        let links = ICEServerLinks(fieldValues: [
            #"<turn:user:secret@turn.example>; rel="ice-server"; username="u"; credential="secret""#,
            #"<turn:turn.example>; rel="ice-server""#,
            #"<turn:turn.example>; rel="ice-server"; username="u"; credential="t"; credential-type="oauth""#,
            #"<http://turn.example>; rel="ice-server""#,
            #"<stun:ok.example>; rel="ice-server""#,
        ])
        #expect(links.servers.map(\.uri.host) == ["ok.example"])
        #expect(links.problems.count == 4)
        #expect(links.problems.first == "ice-server link 1 ignored: the port is not a number from 1 to 65535")
        #expect(!links.problems.joined().contains("secret"))
    }

    @Test(arguments: [
        #"stun:a.example; rel="ice-server""#,
        #"<stun:a.example; rel="ice-server""#,
        #"<stun:a.example>; rel="ice-server"#,
        #"<stun:a.example>; rel="ice-\"#,
        #"<stun:a.example>; rel="ice-server" <stun:b.example>"#,
        "<stun:a.example>; rel=\"ice\u{01}server\"",
        "<stun:a\u{7F}.example>; rel=ice-server",
        #"<stun:a.example>; =x"#,
        #"<stun:a.example>; rel="#,
    ])
    func dropsAFieldWhoseSyntaxBreaks(_ field: String) {
        let links = ICEServerLinks(fieldValues: [field, #"<stun:next.example>; rel="ice-server""#])
        #expect(links.servers.map(\.uri.host) == ["next.example"])
        #expect(links.problems.count == 1 && links.problems[0].hasPrefix("Link header 1 ignored: "), "\(links.problems)")
    }

    @Test func boundsFieldsLinksAndParameters() {
        let long = "<stun:a.example>; rel=\"ice-server\"; x=\"" + String(repeating: "y", count: ICEServerLinks.maximumFieldBytes) + "\""
        #expect(ICEServerLinks(fieldValues: [long]).problems == ["Link header 1 ignored: longer than 16384 bytes"])
        let many = Array(repeating: #"<stun:a.example>; rel="ice-server""#, count: ICEServerLinks.maximumLinks + 1).joined(separator: ",")
        #expect(ICEServerLinks(fieldValues: [many]).problems == ["Link header 1 ignored: more than 32 links"])
        let parameters = "<stun:a.example>" + String(repeating: "; a=b", count: 17)
        #expect(ICEServerLinks(fieldValues: [parameters]).problems == ["Link header 1 ignored: a link has more than 16 parameters"])
    }

    /// What `serve` sends reads back as the same servers, quotes and backslashes escaped.
    @Test func writesFieldsThatReadBack() throws {
        let servers = [
            try ICEServer(uri: ICEServerURI(parsing: "stun:stun.example.net")),
            try ICEServer(turnURL: "turn://us%22er:pa%5Css@turn.example.net:3478?transport=tcp"),
        ]
        let fields = ICEServerLinks.fieldValues(for: servers)
        #expect(fields == [
            #"<stun:stun.example.net:3478>; rel="ice-server""#,
            #"<turn:turn.example.net:3478?transport=tcp>; rel="ice-server"; username="us\"er"; credential="pa\\ss"; credential-type="password""#,
        ])
        #expect(ICEServerLinks(fieldValues: fields) == ICEServerLinks(servers: servers))
    }
}
