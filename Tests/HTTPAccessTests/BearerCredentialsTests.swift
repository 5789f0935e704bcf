import HTTPAccess
import Testing

/// RFC 6750 §2.1's grammar, byte for byte.
@Suite struct BearerCredentialsTests {
    @Test(arguments: [
        ("Bearer mF_9.B5f-4.1JqM", "mF_9.B5f-4.1JqM"),
        ("bearer abc", "abc"),
        ("BEARER   abc", "abc"),
        ("Bearer a+b/c~d==", "a+b/c~d=="),
    ])
    func wellFormedCredentialsGiveTheirToken(_ header: String, _ token: String) throws {
        #expect(try BearerCredentials(parsing: header).token == Array(token.utf8))
    }

    @Test(arguments: [
        ("Bearer", BearerCredentialsError.malformed),
        ("Bearer ", .malformed),
        ("Bearer a=b", .malformed),
        ("Bearer ==", .malformed),
        ("Bearer abc def", .malformed),
        ("Bearer abc\t", .malformed),
        ("Bearer caf\u{E9}", .malformed),
        ("Bearer \"abc\"", .malformed),
        ("Basic dXNlcjpwYXNz", .notBearer),
        ("Bearerabc", .notBearer),
        ("", .notBearer),
        ("Bear", .notBearer),
    ])
    func anythingElseIsRefusedWithTheReason(_ header: String, _ error: BearerCredentialsError) {
        #expect(throws: error) { try BearerCredentials(parsing: header) }
    }

    @Test func anOversizedHeaderIsRefusedBeforeItIsRead() {
        let header = "Bearer " + String(repeating: "a", count: BearerCredentials.maximumLength)
        #expect(throws: BearerCredentialsError.oversized(bytes: header.utf8.count)) { try BearerCredentials(parsing: header) }
        #expect((try? BearerCredentials(parsing: String(header.prefix(BearerCredentials.maximumLength)))) != nil)
    }

    @Test func theTokenNeverShowsInItsDescription() throws {
        let credentials = try BearerCredentials(parsing: "Bearer s3cr3t-token")
        #expect(!"\(credentials)".contains("s3cr3t"))
        #expect(credentials.headerValue == "Bearer s3cr3t-token")
    }
}

@Suite struct BearerTokenSetTests {
    let tokens = BearerTokenSet([Array("first-token".utf8), Array("second".utf8)])

    @Test func onlyAWholeTokenMatches() {
        #expect(tokens.contains(Array("first-token".utf8)))
        #expect(tokens.contains(Array("second".utf8)))
        for wrong in ["first-toke", "first-tokenX", "First-token", "", "secon", "second ", "first-token\u{0}"] {
            #expect(!tokens.contains(Array(wrong.utf8)), "\(wrong)")
        }
        #expect(!BearerTokenSet([]).contains([]))
    }

    @Test func aUnionKeepsEachTokenOnce() {
        let union = tokens.union(BearerTokenSet([Array("second".utf8), Array("third".utf8)]))
        #expect(union.count == 3)
        #expect(union.contains(Array("third".utf8)) && union.contains(Array("first-token".utf8)))
    }
}
