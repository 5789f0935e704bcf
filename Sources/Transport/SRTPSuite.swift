import CSRTP

/// An SRTP crypto suite as SDES names it in `a=crypto` (RFC 4568 section 6.2, RFC 6188 section 7.1,
/// RFC 7714 section 14.2).
public enum SRTPSuite: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// AES-128 counter mode, 80-bit HMAC-SHA1 tag (RFC 4568 section 6.2.1). The default: every
    /// SRTP receiver supports it, ffmpeg and GStreamer included.
    case aesCM128HMACSHA1_80 = "AES_CM_128_HMAC_SHA1_80"
    /// AES-128 counter mode, 32-bit tag on SRTP; SRTCP keeps the 80-bit tag (RFC 4568 section 6.2.2).
    case aesCM128HMACSHA1_32 = "AES_CM_128_HMAC_SHA1_32"
    /// AES-256 counter mode, 80-bit tag (RFC 6188 section 7.1).
    case aes256CMHMACSHA1_80 = "AES_256_CM_HMAC_SHA1_80"
    /// AES-256 counter mode, 32-bit tag on SRTP, 80-bit on SRTCP (RFC 6188 section 7.1).
    case aes256CMHMACSHA1_32 = "AES_256_CM_HMAC_SHA1_32"
    /// AES-128-GCM with a 16-byte tag (RFC 7714 sections 12 and 14.2). Needs a libsrtp2 built with a
    /// crypto library (OpenSSL, NSS or wolfSSL); see ``isSupported``.
    case aeadAES128GCM = "AEAD_AES_128_GCM"
    /// AES-256-GCM with a 16-byte tag (RFC 7714 sections 12 and 14.2).
    case aeadAES256GCM = "AEAD_AES_256_GCM"

    /// The name in SDP `a=crypto` lines.
    public var sdpName: String { rawValue }

    public var description: String { rawValue }

    /// Finds a suite by its SDP name.
    public init?(sdpName: String) {
        self.init(rawValue: sdpName)
    }

    /// Master key bytes.
    public var keyLength: Int {
        switch self {
        case .aesCM128HMACSHA1_80, .aesCM128HMACSHA1_32, .aeadAES128GCM: 16
        case .aes256CMHMACSHA1_80, .aes256CMHMACSHA1_32, .aeadAES256GCM: 32
        }
    }

    /// Master salt bytes: 14 for counter mode (RFC 3711 section 8.2), 12 for GCM (RFC 7714 section 12).
    public var saltLength: Int { isAEAD ? 12 : 14 }

    /// Bytes of the `inline:` keying material: master key ‖ master salt.
    public var keyingMaterialLength: Int {
        switch self {
        case .aesCM128HMACSHA1_80, .aesCM128HMACSHA1_32: Int(CAMRTP_SRTP_AES_128_KEY_SALT_LEN)
        case .aes256CMHMACSHA1_80, .aes256CMHMACSHA1_32: Int(CAMRTP_SRTP_AES_256_KEY_SALT_LEN)
        case .aeadAES128GCM: Int(CAMRTP_SRTP_AES_GCM_128_KEY_SALT_LEN)
        case .aeadAES256GCM: Int(CAMRTP_SRTP_AES_GCM_256_KEY_SALT_LEN)
        }
    }

    /// Bytes `srtp_protect` appends to an RTP packet (no MKI): what the packetizer keeps free.
    public var rtpAuthenticationTagLength: Int {
        switch self {
        case .aesCM128HMACSHA1_80, .aes256CMHMACSHA1_80: 10
        case .aesCM128HMACSHA1_32, .aes256CMHMACSHA1_32: 4
        case .aeadAES128GCM, .aeadAES256GCM: 16
        }
    }

    /// Bytes `srtp_protect_rtcp` appends: the E flag and SRTCP index word (RFC 3711 section 3.4)
    /// plus the tag, which is 80 bits for every HMAC suite (RFC 4568 section 6.2.2).
    public var rtcpTrailerLength: Int {
        4 + (isAEAD ? 16 : 10)
    }

    /// A wordier summary for error messages and help: `16-byte key ‖ 14-byte salt`.
    public var keyingMaterialLayout: String {
        "\(keyLength)-byte key ‖ \(saltLength)-byte salt"
    }

    var isAEAD: Bool { self == .aeadAES128GCM || self == .aeadAES256GCM }

    /// Fills the libsrtp2 crypto policies for this suite.
    func configure(rtp: inout srtp_crypto_policy_t, rtcp: inout srtp_crypto_policy_t) {
        switch self {
        case .aesCM128HMACSHA1_80:
            srtp_crypto_policy_set_rtp_default(&rtp)
            srtp_crypto_policy_set_rtcp_default(&rtcp)
        case .aesCM128HMACSHA1_32:
            srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32(&rtp)
            srtp_crypto_policy_set_rtcp_default(&rtcp)
        case .aes256CMHMACSHA1_80:
            srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80(&rtp)
            srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80(&rtcp)
        case .aes256CMHMACSHA1_32:
            srtp_crypto_policy_set_aes_cm_256_hmac_sha1_32(&rtp)
            srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80(&rtcp)
        case .aeadAES128GCM:
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&rtp)
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&rtcp)
        case .aeadAES256GCM:
            srtp_crypto_policy_set_aes_gcm_256_16_auth(&rtp)
            srtp_crypto_policy_set_aes_gcm_256_16_auth(&rtcp)
        }
    }

    /// Whether the linked libsrtp2 can run this suite, found by creating a session with it
    /// (GCM exists only when libsrtp2 was built against a crypto library).
    public var isSupported: Bool {
        (try? SRTPSession(key: SRTPMasterKey(suite: self, zeroed: ()), direction: .outbound)) != nil
    }

    /// The suites the linked libsrtp2 supports.
    public static var supportedSuites: [SRTPSuite] { allCases.filter(\.isSupported) }
}
