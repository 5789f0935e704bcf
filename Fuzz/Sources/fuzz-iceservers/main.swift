// What names ICE servers from outside: a WHIP endpoint's Link fields (RFC 8288, RFC 9725
// section 4.6), the STUN/TURN URIs in them (RFC 7064, RFC 7065), and --turn URLs.
//
// Input: bytes read as one Link field value, then as a URI and as a --turn URL (invalid UTF-8
// is read as U+FFFD).

import FuzzSupport
import ICEServers

fuzz { input in
    let text = String(decoding: input, as: UTF8.self)
    let links = ICEServerLinks(fieldValues: [text])
    fuzzCheck(links.servers.count + links.problems.count <= ICEServerLinks.maximumLinks, "Link: more results than links allowed")
    // The servers read are written as fields that read back as the same servers.
    let rewritten = ICEServerLinks(fieldValues: ICEServerLinks.fieldValues(for: links.servers))
    fuzzCheck(rewritten.servers == links.servers && rewritten.problems.isEmpty, "Link: \(text) does not read back once written")
    for server in links.servers {
        fuzzCheck(!server.description.contains("@"), "Link: a server's description shows user information")
    }

    if let uri = try? ICEServerURI(parsing: text) {
        fuzzCheck((try? ICEServerURI(parsing: uri.description)) == uri, "URI: \(text) written as \(uri) reads back otherwise")
    }
    if let server = try? ICEServer(turnURL: text) {
        fuzzCheck(server.uri.scheme.isTURN && server.username?.isEmpty == false && server.credential?.isEmpty == false,
                  "--turn: \(text) gave a server without credentials")
        fuzzCheck((try? ICEServerURI(parsing: server.uri.description)) == server.uri, "--turn: \(text)'s URI does not read back")
    }
}
