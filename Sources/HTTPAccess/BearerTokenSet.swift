/// The tokens that grant access. A presented token is compared with every one of them, each
/// comparison touching every byte of the stored token whatever the presented one holds, so the
/// time taken does not tell an attacker how much of a guess was right (RFC 6750 §5.2 asks that
/// tokens not be guessable; a comparison that stops at the first difference would let them be
/// found byte by byte).
public struct BearerTokenSet: Sendable, Equatable {
    private let tokens: [[UInt8]]

    public init(_ tokens: [[UInt8]]) {
        self.tokens = tokens
    }

    public var count: Int { tokens.count }
    /// The first token, for a client that sends one (`publish --bearer-file`).
    public var first: [UInt8]? { tokens.first }
    public var isEmpty: Bool { tokens.isEmpty }

    /// The union of two sets (a token file and the environment's token).
    public func union(_ other: BearerTokenSet) -> BearerTokenSet {
        BearerTokenSet(tokens + other.tokens.filter { !tokens.contains($0) })
    }

    /// True when `presented` is one of the tokens; the time depends on the stored tokens' lengths
    /// and the presented one's, never on their contents.
    public func contains(_ presented: [UInt8]) -> Bool {
        var found: UInt8 = 0
        for token in tokens {
            found |= Self.equalInConstantTime(token, presented)
        }
        return found == 1
    }

    /// 1 when equal, else 0, without a branch on the bytes.
    private static func equalInConstantTime(_ expected: [UInt8], _ presented: [UInt8]) -> UInt8 {
        var difference = UInt(bitPattern: expected.count ^ presented.count)
        presented.withUnsafeBufferPointer { presentedBytes in
            for index in expected.indices {
                // Lengths that differ already made `difference` non-zero.
                let other = index < presentedBytes.count ? presentedBytes[index] : 0
                difference |= UInt(expected[index] ^ other)
            }
        }
        // d | -d has its top bit set for every d but 0.
        let differs = (difference | (0 &- difference)) >> (UInt.bitWidth - 1)
        return UInt8(truncatingIfNeeded: differs ^ 1)
    }
}
