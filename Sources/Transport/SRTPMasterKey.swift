import FoundationEssentials

/// SRTP keying material for one suite: master key ‖ master salt, the `inline:` value of an RFC 4568
/// `a=crypto` line (section 6.1).
///
/// The bytes never appear in `description`, `debugDescription` or reflection (`dump`, `Mirror`);
/// only ``base64EncodedKeyingMaterial()`` reveals them, for the SDP.
public struct SRTPMasterKey: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    public let suite: SRTPSuite
    let bytes: [UInt8]

    /// Fresh keying material from the system CSPRNG (getrandom(2) on Linux).
    public init(randomFor suite: SRTPSuite) {
        var generator = SystemRandomNumberGenerator()
        self.suite = suite
        self.bytes = (0..<suite.keyingMaterialLength).map { _ in generator.next() as UInt8 }
    }

    /// Keying material from raw bytes.
    public init(suite: SRTPSuite, bytes: [UInt8], option: String = "--srtp-key") throws(SRTPKeyError) {
        guard bytes.count == suite.keyingMaterialLength else {
            throw SRTPKeyError(option: option, suite: suite, problem: .wrongLength(bytes.count))
        }
        self.suite = suite
        self.bytes = bytes
    }

    /// Keying material from base64 (RFC 4648 section 4, padded), as `--srtp-key` or `inline:` gives it.
    public init(base64: String, suite: SRTPSuite, option: String = "--srtp-key") throws(SRTPKeyError) {
        guard let data = Data(base64Encoded: base64) else {
            throw SRTPKeyError(option: option, suite: suite, problem: .notBase64)
        }
        try self.init(suite: suite, bytes: [UInt8](data), option: option)
    }

    /// All-zero material: only for probing which suites libsrtp2 supports.
    init(suite: SRTPSuite, zeroed: Void) {
        self.suite = suite
        self.bytes = [UInt8](repeating: 0, count: suite.keyingMaterialLength)
    }

    /// The secret as base64, for the SDP `inline:` parameter. Never log it.
    public func base64EncodedKeyingMaterial() -> String {
        Data(bytes).base64EncodedString()
    }

    public var description: String { "SRTPMasterKey(\(suite.sdpName), <redacted>)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["suite": suite], displayStyle: .struct) }
}

/// Why SRTP keying material was rejected, naming the option and the length the suite needs:
/// `--srtp-key must be base64 of 30 bytes (16-byte key ‖ 14-byte salt); got 12 bytes`.
public struct SRTPKeyError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Problem: Sendable, Hashable {
        case notBase64
        /// The decoded byte count.
        case wrongLength(Int)
    }

    public let option: String
    public let suite: SRTPSuite
    public let problem: Problem

    public var description: String {
        let expected = "\(option) must be base64 of \(suite.keyingMaterialLength) bytes (\(suite.keyingMaterialLayout))"
        switch problem {
        case .notBase64:
            return "\(expected); the value is not valid base64"
        case .wrongLength(let count):
            return "\(expected); got \(count) bytes"
        }
    }
}
