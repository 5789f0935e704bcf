import Foundation
import HTTPAccess
import TestSupport
import Testing

@Suite struct TokenFileTests {
    @Test func tokensOnePerLineWithCommentsBlankLinesAndCRLF() throws {
        let file = try TokenFile(parsing: Array("# viewers\n\n  alpha-1  \r\nbeta/2==\n# old: gamma\nalpha-1\n\tdelta".utf8))
        #expect(file.tokens.count == 3)
        for token in ["alpha-1", "beta/2==", "delta"] { #expect(file.tokens.contains(Array(token.utf8)), "\(token)") }
        #expect(!file.tokens.contains(Array("gamma".utf8)))
    }

    @Test func aBadLineIsNamedByNumberWithoutItsToken() {
        #expect(throws: TokenFileError.invalidLine(2, "a token may hold only letters, digits and - . _ ~ + / (then = at the end)")) {
            try TokenFile(parsing: Array("good\nsecret with space\n".utf8))
        }
        let long = String(repeating: "x", count: TokenFile.maximumTokenBytes + 1)
        #expect(throws: TokenFileError.invalidLine(1, "the token is longer than \(TokenFile.maximumTokenBytes) bytes")) {
            try TokenFile(parsing: Array(long.utf8))
        }
        do {
            _ = try TokenFile(parsing: Array("p@ssword\n".utf8))
            Issue.record("accepted a token with @")
        } catch {
            #expect(!error.description.contains("p@ssword"))
        }
    }

    @Test func aFileWithoutTokensOrTooLargeIsRefused() {
        #expect(throws: TokenFileError.noToken) { try TokenFile(parsing: Array("# nothing yet\n\n".utf8)) }
        #expect(throws: TokenFileError.noToken) { try TokenFile(parsing: []) }
        let large = [UInt8](repeating: UInt8(ascii: "a"), count: TokenFile.maximumBytes + 1)
        #expect(throws: TokenFileError.tooLarge(bytes: large.count)) { try TokenFile(parsing: large) }
    }

    @Test func loadingSaysWhyAFileCannotBeRead() throws {
        let directory = TemporaryDirectory()
        #expect(throws: TokenFileError.unreadable("cannot be read: No such file or directory")) {
            try TokenFile.load(path: directory.file("missing"))
        }
        try "one\ntwo\n".write(toFile: directory.file("tokens"), atomically: true, encoding: .utf8)
        #expect(try TokenFile.load(path: directory.file("tokens")).tokens.count == 2)
        #expect(throws: TokenFileError.unreadable("cannot be read: Is a directory")) { try TokenFile.load(path: directory.path) }
    }
}
