/// `a=crypto:<tag> <suite> inline:<key>[|<lifetime>][|<MKI>:<length>] [<session params>]`
/// (RFC 4568 section 9.1) for SDES-keyed SRTP. One key per line.
public struct CryptoAttribute: Sendable, Hashable {
    public var tag: UInt32
    /// The crypto-suite name, such as `AES_CM_128_HMAC_SHA1_80`.
    public var suite: String
    public var key: InlineKey
    /// Session parameters such as `UNENCRYPTED_SRTCP`, kept as written.
    public var sessionParameters: [String]

    public init(tag: UInt32 = 1, suite: String, key: InlineKey, sessionParameters: [String] = []) {
        self.tag = tag
        self.suite = suite
        self.key = key
        self.sessionParameters = sessionParameters
    }

    var sdpValue: String {
        ([String(tag), suite, key.sdpValue] + sessionParameters).joined(separator: " ")
    }

    init(sdpValue: Substring) throws(SDPParseError.Reason) {
        let field = "a=crypto"
        let parts = SDPText.tokens(sdpValue)
        guard parts.count >= 3 else {
            throw .invalid(field: field, problem: "expected \"<tag> <suite> inline:<key>\", found \(parts.count) fields")
        }
        tag = try SDPText.number(parts[0], as: UInt32.self, in: 0...999_999_999, field: field, what: "a tag")
        suite = String(parts[1])
        key = try InlineKey(sdpValue: parts[2])
        sessionParameters = parts.dropFirst(3).map(String.init)
    }
}

/// Base64 master key ‖ salt for `inline:` (RFC 4568 section 6.1), with its optional lifetime and
/// MKI. Redacted in `description`, `debugDescription` and reflection; only the serialized SDP
/// carries it.
public struct InlineKey: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    let base64: String
    /// `2^31` or a number of packets, as written.
    public var lifetime: String?
    /// `<MKI value>:<MKI length>`, as written.
    public var mki: String?

    public init(base64: String, lifetime: String? = nil, mki: String? = nil) {
        self.base64 = base64
        self.lifetime = lifetime
        self.mki = mki
    }

    public var description: String { "InlineKey(<redacted>)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [:]) }

    var sdpValue: String { (["inline:" + base64] + [lifetime, mki].compactMap { $0 }).joined(separator: "|") }

    init(sdpValue: Substring) throws(SDPParseError.Reason) {
        let field = "a=crypto"
        guard sdpValue.hasPrefix("inline:") else {
            throw .invalid(field: field, problem: "only inline: keys are supported")
        }
        guard !sdpValue.contains(";") else {
            throw .invalid(field: field, problem: "several keys in one a=crypto line are not supported")
        }
        let parts = sdpValue.dropFirst("inline:".count).split(separator: "|", omittingEmptySubsequences: false)
        guard let first = parts.first, !first.isEmpty, parts.count <= 3 else {
            throw .invalid(field: field, problem: "expected \"inline:<key>[|<lifetime>][|<MKI>:<length>]\"")
        }
        base64 = String(first)
        // The lifetime has no colon and the MKI has one (RFC 4568 section 9.2), so either may come alone.
        for part in parts.dropFirst() {
            if part.contains(":") {
                guard mki == nil else { throw .invalid(field: field, problem: "two MKIs") }
                mki = String(part)
            } else {
                guard lifetime == nil, mki == nil else { throw .invalid(field: field, problem: "the lifetime comes before the MKI") }
                lifetime = String(part)
            }
        }
    }
}
