// What a client or an operator hands `serve`'s access control: an `Authorization` header's
// value as a request carries it (invalid UTF-8 read as U+FFFD, as a header from the network
// would be), and the same bytes as a token file (`--token-file`).
//
// Input: one header value, which is also one token file.

import FuzzSupport
import HTTPAccess

fuzz { input in
    let bytes = Array(input)
    if let credentials = try? BearerCredentials(parsing: String(decoding: bytes, as: UTF8.self)) {
        // A token that reads is one a client can send again: the header it makes reads back to it.
        fuzzCheck(BearerCredentials.isB64Token(credentials.token), "Bearer: read a token that is no b64token")
        let again = try? BearerCredentials(parsing: credentials.headerValue)
        fuzzCheck(again == credentials, "Bearer: \(credentials.headerValue) does not read back")
        fuzzCheck(BearerTokenSet([credentials.token]).contains(credentials.token), "Bearer: a token is not in its own set")
    }
    if let file = try? TokenFile(parsing: bytes) {
        // Every token in the file is granted, and a token with one byte more is not.
        let authenticator = BearerAuthenticator(tokens: file.tokens, clock: { 0 })
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            guard let token = try? BearerCredentials(parsing: "Bearer " + String(decoding: line, as: UTF8.self)) else { continue }
            let granted = authenticator.check(authorization: token.headerValue, from: nil) == .granted
            fuzzCheck(granted == file.tokens.contains(token.token), "Token file: a token's check and the set disagree")
            fuzzCheck(!file.tokens.contains(token.token + [UInt8(ascii: "a")]) || file.tokens.count > 1, "Token file: a longer token matched")
        }
    }
}
