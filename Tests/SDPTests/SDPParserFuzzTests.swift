import SDP
import Testing
import TestSupport

/// Mutated real descriptions: the parser either throws `SDPParseError` or returns a value that
/// the writer reproduces exactly (write, read back, equal). It never traps.
@Suite("SDP parser on mutated input")
struct SDPParserFuzzTests {
    /// Bytes that make SDP's grammar interesting, besides random ones.
    private static let alphabet: [UInt8] = Array(" :=/\r\n\t;*.-0123456789amvcotb".utf8) + [0, 0x7F, 0xC3, 0xA9, 0xFF]

    @Test(arguments: Fixture.allCases)
    func mutationsThrowOrReadBackTheSame(_ fixture: Fixture) throws {
        let original = Array(try fixture.text().utf8)
        var generator = SplitMix64(state: UInt64(fixture.rawValue.utf8.count) &* 0x9E37_79B9)
        var parsed = 0
        for _ in 0..<150 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...4, using: &generator) { Self.mutate(&bytes, using: &generator) }
            let text = String(decoding: bytes, as: UTF8.self)
            guard let description = try? SessionDescription(parsing: text) else { continue }
            parsed += 1
            let written = description.serialized()
            let reread = try SessionDescription(parsing: written)
            // Compared apart so that a failure shows the texts, not two model dumps.
            let reproduced = reread == description && reread.serialized() == written
            #expect(reproduced, "not reproduced.\ninput:\n\(text)\nwritten:\n\(written)\nrewritten:\n\(reread.serialized())")
        }
        // Most single mutations leave a readable description, so the idempotence check ran.
        #expect(parsed > 15)
    }

    /// Every prefix of a description is either refused or read; none traps.
    @Test func everyTruncationIsHandled() throws {
        let bytes = Array(try Fixture.chromiumSendrecvOffer.text().utf8)
        var readable = 0
        for end in stride(from: 0, through: bytes.count, by: 5) {
            if (try? SessionDescription(parsing: String(decoding: bytes[..<end], as: UTF8.self))) != nil { readable += 1 }
        }
        #expect(readable > 0)
    }

    private static func mutate(_ bytes: inout [UInt8], using generator: inout SplitMix64) {
        guard !bytes.isEmpty else {
            bytes = [alphabet[Int.random(in: 0..<alphabet.count, using: &generator)]]
            return
        }
        let position = Int.random(in: 0..<bytes.count, using: &generator)
        switch Int.random(in: 0..<6, using: &generator) {
        case 0: bytes[position] = alphabet[Int.random(in: 0..<alphabet.count, using: &generator)]
        case 1: bytes.insert(alphabet[Int.random(in: 0..<alphabet.count, using: &generator)], at: position)
        case 2: bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...12, using: &generator)))
        case 3: bytes[position] = UInt8.random(in: 0...255, using: &generator)
        case 4:
            // Duplicate a stretch, which repeats attributes or whole lines.
            let end = min(bytes.count, position + Int.random(in: 1...80, using: &generator))
            bytes.insert(contentsOf: bytes[position..<end], at: position)
        default:
            // A digit becomes a long run of digits: overflowing numbers.
            bytes.insert(contentsOf: Array(repeating: UInt8(ascii: "9"), count: 25), at: position)
        }
    }
}
