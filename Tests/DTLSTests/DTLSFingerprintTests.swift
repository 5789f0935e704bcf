import DTLS
import Testing

private func hexPairs(_ pair: String, count: Int, separator: String = ":") -> String {
    Array(repeating: pair, count: count).joined(separator: separator)
}

private let malformedValues: [String] = [
    "",
    "sha-256",
    "sha-1 " + hexPairs("AB", count: 20),
    "md5 " + hexPairs("AB", count: 16),
    "sha-256 " + hexPairs("AB", count: 31),
    "sha-256 " + hexPairs("AB", count: 33),
    "sha-256 " + hexPairs("ABC", count: 32),
    "sha-256 " + hexPairs("+A", count: 32),
    "sha-256 " + hexPairs("G0", count: 32),
    "sha-256 " + hexPairs("AB", count: 32, separator: "-"),
    "sha-256 " + hexPairs("AB", count: 32) + ":",
    "sha-256 " + hexPairs("AB", count: 32) + " extra",
]

@Suite("a=fingerprint values")
struct DTLSFingerprintTests {
    /// 03, 0A, 11, … : 32 bytes that step by 7.
    private static let digest: [UInt8] = (0..<32).map { (index: Int) -> UInt8 in UInt8(index * 7 + 3) }
    private let value = "sha-256 " + DTLSFingerprintTests.digest.map { (byte: UInt8) -> String in
        let hex = String(byte, radix: 16, uppercase: true)
        return byte < 0x10 ? "0" + hex : hex
    }.joined(separator: ":")

    @Test func roundTripsTheSDPForm() throws {
        let fingerprint = try DTLSFingerprint(sdpValue: value)
        #expect(fingerprint.hashFunction == .sha256)
        #expect(fingerprint.digest == Self.digest)
        #expect(fingerprint.sdpValue == value)
        #expect(fingerprint.sdpValue.hasPrefix("sha-256 03:0A:11:18:"))
    }

    @Test func acceptsAnyCaseAndExtraSpaces() throws {
        let fingerprint = try DTLSFingerprint(sdpValue: value)
        #expect(try DTLSFingerprint(sdpValue: value.lowercased()) == fingerprint)
        #expect(try DTLSFingerprint(sdpValue: "SHA-256  " + value.dropFirst(8)) == fingerprint)
    }

    @Test func readsLongerHashes() throws {
        let sha512 = "sha-512 " + hexPairs("AB", count: 64)
        let fingerprint = try DTLSFingerprint(sdpValue: sha512)
        #expect(fingerprint.hashFunction == .sha512)
        #expect(fingerprint.digest.count == 64)
    }

    @Test(arguments: malformedValues)
    func rejectsMalformedValues(value: String) {
        #expect(throws: DTLSError("parse a=fingerprint", .malformedFingerprint(value))) {
            try DTLSFingerprint(sdpValue: value)
        }
    }

    @Test func explainsARejection() {
        let error = DTLSError("parse a=fingerprint", .malformedFingerprint("sha-1 AB"))
        #expect(error.description == "DTLSError: parse a=fingerprint failed: \"sha-1 AB\" is not a fingerprint "
            + "such as \"sha-256 AB:CD:…\" (RFC 8122 section 5)")
    }
}
