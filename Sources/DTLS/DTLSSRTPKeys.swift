import Transport

/// The SRTP master keys a DTLS-SRTP handshake yields (RFC 5764 section 4.2): `outbound` protects
/// what we send, `inbound` unprotects what the peer sends. The client's write key is the
/// client's outbound key and the server's inbound key, and the other way round.
public struct DTLSSRTPKeys: Sendable, Hashable, CustomStringConvertible {
    /// The negotiated protection profile, as the suite SDES and libsrtp2 name it.
    public let suite: SRTPSuite
    public let outbound: SRTPMasterKey
    public let inbound: SRTPMasterKey

    /// Splits keying material exported with the label `EXTRACTOR-dtls_srtp`, laid out as
    /// client write key ‖ server write key ‖ client write salt ‖ server write salt.
    init(suite: SRTPSuite, exportedMaterial material: [UInt8], role: DTLSSession.Role) throws(DTLSError) {
        let keyLength = suite.keyLength
        let saltLength = suite.saltLength
        precondition(material.count == Self.exportedLength(for: suite), "exported material has the wrong length")
        let clientKey = material[0..<keyLength]
        let serverKey = material[keyLength..<2 * keyLength]
        let clientSalt = material[2 * keyLength..<2 * keyLength + saltLength]
        let serverSalt = material[2 * keyLength + saltLength..<2 * (keyLength + saltLength)]
        let option = "DTLS-SRTP keying material"
        do throws(SRTPKeyError) {
            let client = try SRTPMasterKey(suite: suite, bytes: Array(clientKey + clientSalt), option: option)
            let server = try SRTPMasterKey(suite: suite, bytes: Array(serverKey + serverSalt), option: option)
            self.suite = suite
            (outbound, inbound) = role == .client ? (client, server) : (server, client)
        } catch {
            throw DTLSError("split the DTLS-SRTP keys", .srtpKey(error))
        }
    }

    /// Bytes to export for `suite`: two keys and two salts.
    static func exportedLength(for suite: SRTPSuite) -> Int {
        2 * (suite.keyLength + suite.saltLength)
    }

    public var description: String { "DTLSSRTPKeys(\(suite.sdpName), <redacted>)" }
}

extension SRTPSuite {
    /// The DTLS-SRTP protection profile (RFC 5764 section 4.1.2, RFC 7714 section 14.2) in
    /// OpenSSL's spelling, or nil for suites that have none (AES-256 counter mode).
    var dtlsProfileName: String? {
        switch self {
        case .aesCM128HMACSHA1_80: "SRTP_AES128_CM_SHA1_80"
        case .aesCM128HMACSHA1_32: "SRTP_AES128_CM_SHA1_32"
        case .aeadAES128GCM: "SRTP_AEAD_AES_128_GCM"
        case .aeadAES256GCM: "SRTP_AEAD_AES_256_GCM"
        case .aes256CMHMACSHA1_80, .aes256CMHMACSHA1_32: nil
        }
    }

    /// The suite of a negotiated profile's IANA number: 0x0001, 0x0002, 0x0007 or 0x0008.
    init?(dtlsProfileID: UInt) {
        switch dtlsProfileID {
        case 0x0001: self = .aesCM128HMACSHA1_80
        case 0x0002: self = .aesCM128HMACSHA1_32
        case 0x0007: self = .aeadAES128GCM
        case 0x0008: self = .aeadAES256GCM
        default: return nil
        }
    }
}
